import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

export interface TcpProxy {
  /** The loopback port clients connect to. */
  port: number;
  /**
   * The server behind goes away, as a stopped server does for its clients: every open connection
   * is reset and new ones are refused until restore().
   */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP relay in front of a server, for outage tests. The MongoDB-wire server used here keeps its
 * data in memory only, so stopping it would lose everything a real mongod keeps on disk; cutting
 * the network path gives clients exactly what a restart of a durable server gives them.
 */
export async function startTcpProxy(target: { host?: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const relay = (client: Socket) => {
    const upstream = tcpConnect(target.port, target.host ?? '127.0.0.1');
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  };
  let server: Server | undefined;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const next = createServer(relay);
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        server = next;
        const address = next.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  const stop = async () => {
    const closing = server;
    server = undefined;
    // resetAndDestroy sends RST, as a dead server's host does, instead of a polite FIN.
    for (const socket of sockets) socket.resetAndDestroy();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  const port = await listen(0);
  return {
    port,
    cut: stop,
    restore: async () => {
      if (!server) await listen(port);
    },
    close: stop,
  };
}

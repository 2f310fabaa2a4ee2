/** The part of a MongoDB driver client that command monitoring needs (`monitorCommands=true`). */
interface MonitoredClient {
  on(event: 'commandStarted', listener: (event: CommandStarted) => void): unknown;
  off(event: 'commandStarted', listener: (event: CommandStarted) => void): unknown;
}

interface CommandStarted {
  commandName: string;
  command: Record<string, unknown>;
}

/** The commands `work` sends on the client, each as its name and collection ("find compression_holds"). */
export async function commandsSent(client: MonitoredClient, work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const onStarted = (event: CommandStarted) =>
    sent.push(`${event.commandName} ${String(event.command[event.commandName])}`);
  client.on('commandStarted', onStarted);
  try {
    await work();
  } finally {
    client.off('commandStarted', onStarted);
  }
  return sent;
}

import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A port the OS says is free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface EmbeddedProcess {
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
// An embedded server must never outlive the process that started it, even on a crash.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Spawns a server and resolves once a line of its output matches `ready`; rejects with the
 * output seen so far if it exits or takes longer than `timeoutMs`.
 */
export function spawnUntilReady(
  command: string,
  args: string[],
  ready: RegExp,
  timeoutMs = 20_000,
): Promise<EmbeddedProcess & { match: RegExpMatchArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let output = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      running.delete(child);
      reject(new Error(`${command} ${why}; output:\n${output.slice(-2000)}`));
    };
    const timer = setTimeout(() => fail(`not ready after ${timeoutMs} ms`), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(ready);
      if (!match) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.stdout?.resume();
      child.stderr?.resume();
      resolve({ child, match, stop: () => stopChild(child) });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('error', (error) => fail(`could not start: ${error.message}`));
    child.on('exit', (code) => {
      running.delete(child);
      if (!output.match(ready)) fail(`exited with ${code}`);
    });
  });
}

function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      running.delete(child);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

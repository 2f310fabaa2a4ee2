import { readdir, readFile } from 'node:fs/promises';

export interface ProcStat {
  /** User plus system CPU. */
  cpuMs: number;
  /**
   * Kernel CPU alone. On loopback it includes delivering each message to the local server's socket,
   * which a deployment pays on the network card and the server's host instead.
   */
  systemMs: number;
  peakRssMb: number;
}

/** The name and CPU (ms) of a /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat line. */
function parseStat(stat: string): { name: string; cpuMs: number; systemMs: number } {
  // The name is in parentheses and may hold spaces: the fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, in clock ticks (100/s on Linux)
  const [user, system] = [Number(fields[11]), Number(fields[12])];
  const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  return { name, cpuMs: (user + system) * 10, systemMs: system * 10 };
}

/** CPU time and peak resident memory of a process, from /proc (Linux). */
export async function procStat(pid: number): Promise<ProcStat> {
  const { cpuMs, systemMs } = parseStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const hwm = Number(status.match(/VmHWM:\s+(\d+) kB/)?.[1] ?? 0);
  return { cpuMs, systemMs, peakRssMb: hwm / 1024 };
}

/** CPU milliseconds each process spends while `work` runs (processes without a pid are skipped). */
export async function cpuDuring<T>(
  pids: Record<string, number | undefined>,
  work: () => Promise<T>,
): Promise<{ result: T; cpuMs: Record<string, number> }> {
  const before = await sample(pids);
  const result = await work();
  const after = await sample(pids);
  return {
    result,
    cpuMs: Object.fromEntries(Object.keys(before).map((name) => [name, after[name]! - before[name]!])),
  };
}

async function sample(pids: Record<string, number | undefined>): Promise<Record<string, number>> {
  const entries = Object.entries(pids).filter((e): e is [string, number] => e[1] !== undefined);
  return Object.fromEntries(
    await Promise.all(entries.map(async ([name, pid]) => [name, (await procStat(pid)).cpuMs])),
  );
}

/** The worker's threads, grouped by what runs on them. */
export type ThreadGroup = 'main' | 'v8' | 'lancedb' | 'other';

function threadGroup(name: string, isMain: boolean): ThreadGroup {
  if (isMain) return 'main';
  // V8's helper threads: concurrent and parallel GC, background compilation.
  if (name.startsWith('V8')) return 'v8';
  // LanceDB's Rust runtime.
  if (name.startsWith('tokio') || name.toLowerCase().includes('lance')) return 'lancedb';
  return 'other';
}

/**
 * CPU milliseconds of a process so far, by thread group (Linux /proc/<pid>/task). Threads that have
 * ended are missing, so the groups can add up to a little less than procStat's total.
 */
export async function threadCpu(pid: number): Promise<Record<ThreadGroup, number>> {
  const groups: Record<ThreadGroup, number> = { main: 0, v8: 0, lancedb: 0, other: 0 };
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const { name, cpuMs } = parseStat(stat);
    groups[threadGroup(name, tid === String(pid))] += cpuMs;
  }
  return groups;
}

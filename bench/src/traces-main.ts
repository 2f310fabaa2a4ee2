import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startLlmEmulator } from '@memfade/testing';
import { benchmarkEndToEnd, type EndToEndResult } from './end-to-end.js';
import { benchEnv } from './env.js';
import { startBenchServers } from './servers.js';

// `pnpm bench:traces`: the worker's CPU per memory with OpenTelemetry traces off and on
// (docs/operations.md "Traces"), in pairs run in turn on the same servers, so a drift of the
// machine's speed falls on both. "On" exports every span over OTLP/HTTP to a sink in this process
// that answers 200 and counts what it received: the worker pays for making, batching, encoding and
// sending its spans, as it would to a collector.
const { tracesPairs: pairs, tracesMemories: memories, tracesConcurrency: concurrency } = benchEnv;

const received = { requests: 0, bytes: 0 };
const sink = createServer((req, res) => {
  req.on('data', (chunk: Buffer) => {
    received.bytes += chunk.length;
  });
  req.on('end', () => {
    received.requests++;
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

const servers = await startBenchServers();
const emulator = await startLlmEmulator();
try {
  const run = (workerEnv?: Record<string, string>) =>
    benchmarkEndToEnd(servers.config, emulator, {
      latencyMs: 0,
      concurrency,
      memories,
      users: Math.max(1, Math.round(memories / 20)),
      ...(workerEnv && { workerEnv }),
    });
  const runs: { off: EndToEndResult; on: EndToEndResult; spanBytes: number }[] = [];
  // BENCH_TRACES_SAMPLER (e.g. always_off): the SDK's sampler in the traced runs, to tell what the
  // spans cost from what the rest of the machinery (BullMQ's telemetry, the context manager) costs.
  const sampler = benchEnv.tracesSampler;
  const traced = () =>
    run({
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_SERVICE_NAME: 'memfade-bench',
      ...(sampler && { OTEL_TRACES_SAMPLER: sampler }),
    });
  for (let i = 0; i < pairs; i++) {
    // Off first in even pairs, on first in odd ones: neither always runs on a warmer machine.
    const before = received.bytes;
    let off: EndToEndResult;
    let on: EndToEndResult;
    if (i % 2 === 0) {
      off = await run();
      on = await traced();
    } else {
      on = await traced();
      off = await run();
    }
    runs.push({ off, on, spanBytes: received.bytes - before });
    console.error(
      `pair ${i + 1}: off ${off.cpuMsPerMemory.toFixed(2)} ms, on ${on.cpuMsPerMemory.toFixed(2)} ms`,
    );
  }
  const ratios = runs.map((r) => r.on.cpuMsPerMemory / r.off.cpuMsPerMemory).sort((a, b) => a - b);
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const round = (x: number, digits = 3) => Number(x.toFixed(digits));
  const report = {
    date: new Date().toISOString(),
    memories,
    concurrency,
    sampler: sampler ?? 'parentbased_always_on',
    pairs: runs.map((r) => ({
      offCpuMsPerMemory: round(r.off.cpuMsPerMemory),
      onCpuMsPerMemory: round(r.on.cpuMsPerMemory),
      ratio: round(r.on.cpuMsPerMemory / r.off.cpuMsPerMemory),
      offPerSecond: round(r.off.perSecond, 1),
      onPerSecond: round(r.on.perSecond, 1),
      spanKbPerMemory: round(r.spanBytes / 1024 / memories),
    })),
    medianOffCpuMsPerMemory: round(median(runs.map((r) => r.off.cpuMsPerMemory))),
    medianOnCpuMsPerMemory: round(median(runs.map((r) => r.on.cpuMsPerMemory))),
    medianRatio: round(median(ratios)),
    /** The bound: CPU per memory with traces on at most 5 % above off. */
    withinFivePercent: median(ratios) <= 1.05,
    otlpRequests: received.requests,
  };
  await mkdir(benchEnv.resultsDir, { recursive: true });
  const file = join(benchEnv.resultsDir, `${report.date.replace(/[:.]/g, '-')}-traces.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(JSON.stringify(report, null, 2));
  console.log(`\nresults: ${file}`);
} finally {
  await emulator.close();
  await servers.stop();
  sink.close();
}

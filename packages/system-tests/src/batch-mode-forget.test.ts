import type { ForgetReport } from '@memfade/app';
import { afterEach, describe, expect, it } from 'vitest';
import { closeBatchMode, emulator, harness, setUp, steps } from './batch-mode-harness.js';
import { billedAndCounted } from './faults/fault-checks.js';

/**
 * `memfade forget` racing a batch's create call (docs/design.md invariant 8): the provider has
 * accepted the batch, memfade has not heard back. The receipt says so (never "clean"), nothing of
 * the user is sent after the forget, and the batch is reached once its id is known. The shared
 * setup is batch-mode-harness.ts; forget mid-night under kills is the fault suite's row.
 */
describe('batch mode: forget while a batch is being submitted', () => {
  afterEach(closeBatchMode);

  const files = (report: ForgetReport) => report.receipt.find((e) => e.place === 'provider batch files')!;

  /** The memory and user of the one request in the provider's batch `batchId` (one request a batch). */
  const heldRequest = async (services: Awaited<ReturnType<typeof setUp>>, batchId: string) => {
    const [customId] = emulator!.batches.list().find((b) => b.id === batchId)!.customIds;
    const request = await services.models.batchRequests.collection.findOne({ customId });
    const memory = await services.models.memories.collection.findOne({ memoryId: request!.memoryId });
    return { memoryId: request!.memoryId as string, userId: memory!.userId as string };
  };

  it("says 'pending', sends nothing of the user after the forget, and deletes the batch holding them once its id is known", async () => {
    // Two users' memories (u0, u1), 7 a batch: the user's requests are in both batches of round 0.
    const memories = Array.from({ length: 14 }, (_, i) => ({ id: `g${i}`, ageDays: 4, marker: `<<g${i}>>` }));
    const services = await setUp('anthropic', memories);
    const forgotten = ['g0', 'g4', 'g8', 'g12'];
    const markers = forgotten.map((id) => `<<${id}>>`);
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('night');
    // The provider accepts the first batch; its reply to the create call waits.
    const held = emulator!.batches.holdNextCreate();
    const submitting = submit('night', 0);
    const first = await held.accepted;
    const report = await services.erasure.forget({ userId: 'u0' }, { dryRun: false });
    // Unknown whether the provider holds the user's text: not clean.
    expect(files(report)).toMatchObject({
      status: 'pending',
      detail: expect.stringMatching(/being submitted/),
    });
    expect(report.failures).toEqual([]);
    held.release();
    await submitting;

    // Nothing of the user went out after the forget: only the held batch holds their requests.
    const withUser = emulator!.requests.filter(
      (r) => r.batchId && markers.some((m) => JSON.stringify(r.body).includes(m)),
    );
    expect(withUser.length).toBeGreaterThan(0);
    expect(new Set(withUser.map((r) => r.batchId))).toEqual(new Set([first]));
    expect(emulator!.batches.list().length).toBe(2);
    // The held batch is recorded with the erased requests in it: forget can reach it again.
    const erased = await services.models.batchRequests.collection
      .find({ memoryId: { $in: forgotten } })
      .toArray();
    expect(erased.map((r) => r.state)).toEqual(['erased', 'erased', 'erased', 'erased']);
    expect(erased.filter((r) => r.batchId === first).length).toBe(withUser.length);

    await poll('night', 0);
    // The held batch's results are applied and its files deleted (BATCH_DELETE_FILES is off here:
    // only the forget asked for it); the other batch, without the user, stays.
    const text = emulator!.batches.storedText();
    for (const marker of markers) expect(text).not.toContain(marker);
    expect(text).toContain('<<g1>>');
    const [recorded] = (await services.batches.batches('night', 0)).filter((b) => b.batchId === first);
    expect(recorded?.filesDeletedAt).toBeInstanceOf(Date);
    // A second forget finds nothing left, and says so from what it checked.
    const again = await services.erasure.forget({ userId: 'u0' }, { dryRun: false });
    expect(files(again)).toMatchObject({ status: 'clean' });
    // Every line paid for is counted: the forgotten memories' lines too, once each.
    const lines = await services.models.batchRequests.countDocuments({ state: 'forgotten' });
    expect(lines).toBe(withUser.length);
  });

  it('a batch whose create returns after the forget, holding only erased requests, is canceled and its files deleted', async () => {
    // One request a batch: the held batch holds one memory, and the forget is of its user.
    const memories = Array.from({ length: 12 }, (_, i) => ({ id: `h${i}`, ageDays: 4, marker: `<<h${i}>>` }));
    const services = await setUp('anthropic', memories, { maxRequests: 1 });
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('night');
    emulator!.batches.processingMs = Number.POSITIVE_INFINITY;
    const held = emulator!.batches.holdNextCreate();
    const submitting = submit('night', 0);
    const first = await held.accepted;
    const { memoryId, userId } = await heldRequest(services, first);
    const report = await services.erasure.forget({ userId }, { dryRun: false });
    expect(files(report).status).toBe('pending');
    held.release();
    await submitting;
    // Canceled by the submit when its create returned: nothing but the erased request was in it.
    expect(emulator!.batches.list().find((b) => b.id === first)!.state).not.toBe('in_progress');
    emulator!.batches.settle();
    await poll('night', 0);
    expect(emulator!.batches.list().some((b) => b.id === first)).toBe(false);
    expect(emulator!.batches.storedText()).not.toContain(`<<${memoryId}>>`);
    const again = await services.erasure.forget({ userId }, { dryRun: false });
    expect(files(again)).toMatchObject({ status: 'clean' });
  });

  it('a batch whose create returns after the forget, holding only erased requests and ended by then: its line is counted, then its files deleted', async () => {
    const memories = Array.from({ length: 12 }, (_, i) => ({ id: `e${i}`, ageDays: 4, marker: `<<e${i}>>` }));
    const services = await setUp('anthropic', memories, { maxRequests: 1 });
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('night');
    // Batches end at the provider's first look: the held one has ended when its create returns.
    const held = emulator!.batches.holdNextCreate();
    const submitting = submit('night', 0);
    const first = await held.accepted;
    const { memoryId, userId } = await heldRequest(services, first);
    const report = await services.erasure.forget({ userId }, { dryRun: false });
    expect(files(report).status).toBe('pending');
    held.release();
    await submitting;
    await poll('night', 0);
    // Its line was billed: counted on the run, as every line of the round, and its text is gone.
    const run = await services.runs.get('night');
    const { billed, counted } = billedAndCounted(emulator!, run ? [run] : []);
    expect(billed).toBeGreaterThan(0);
    expect(counted).toBe(billed);
    expect(emulator!.batches.list().some((b) => b.id === first)).toBe(false);
    expect(emulator!.batches.storedText()).not.toContain(`<<${memoryId}>>`);
  });

  it("finds a user's batch requests when the product deleted the user's memories first (an account deletion)", async () => {
    const memories = Array.from({ length: 14 }, (_, i) => ({ id: `k${i}`, ageDays: 4, marker: `<<k${i}>>` }));
    const services = await setUp('anthropic', memories);
    const { produce, submit } = steps(services, harness!.config);
    await produce('night');
    emulator!.batches.processingMs = Number.POSITIVE_INFINITY;
    await submit('night', 0);
    const requested = await services.models.batchRequests.collection.distinct('memoryId', {});
    const mine = (await services.models.memories.collection.distinct('memoryId', {
      userId: 'u0',
    })) as string[];
    expect(mine.filter((id) => requested.includes(id)).length).toBeGreaterThan(0);
    // The product deletes the account's memories, then asks memfade to forget the user
    // (`--allow-unknown`, as docs/cli.md says for an account deletion).
    await services.models.memories.collection.deleteMany({ userId: 'u0' });
    const report = await services.erasure.forget({ userId: 'u0' }, { dryRun: false, allowUnknown: true });
    // The provider holds the user's requests in batches still running: not clean (found by
    // simulate --seed 689, where forget knew no memory of the user and said clean).
    expect(files(report)).toMatchObject({ status: 'pending' });
    const left = await services.models.batchRequests.collection
      .find({ memoryId: { $in: mine }, state: { $nin: ['erased', 'forgotten'] } })
      .toArray();
    expect(left).toEqual([]);
  });
});

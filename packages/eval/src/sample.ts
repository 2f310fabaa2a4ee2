/** mulberry32: a small seeded generator, so `--sample N --seed S` picks the same set every time. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `count` items drawn without replacement, deterministically from `seed`, in their original order. */
export function sample<T>(items: readonly T[], count: number, seed: number): T[] {
  if (count >= items.length) return [...items];
  const random = generator(seed);
  const indices = items.map((_, i) => i);
  // A partial Fisher-Yates shuffle: the first `count` places end up a uniform sample.
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (indices.length - i));
    [indices[i], indices[j]] = [indices[j]!, indices[i]!];
  }
  return indices
    .slice(0, count)
    .sort((a, b) => a - b)
    .map((i) => items[i]!);
}

/** What `--sample` and `--limit` leave of a set: the sample first, then the first `limit` of it. */
export function select<T>(
  items: readonly T[],
  options: { sample?: number; seed?: number; limit?: number },
): T[] {
  const sampled =
    options.sample !== undefined ? sample(items, options.sample, options.seed ?? 1) : [...items];
  return options.limit !== undefined ? sampled.slice(0, options.limit) : sampled;
}

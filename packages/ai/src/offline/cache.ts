/**
 * `cache`'s value for `key`, made the first time it is asked for (a stage is chosen and rendered
 * many times over the same statements); a cache holding more than `limit` starts over.
 */
export function cached<K, V>(cache: Map<K, V>, key: K, make: () => V, limit = Number.POSITIVE_INFINITY): V {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size > limit) cache.clear();
    value = make();
    cache.set(key, value);
  }
  return value;
}

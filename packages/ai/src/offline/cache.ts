/** `cache`'s value for `key`, made once (a stage is rendered many times); over `limit`, it starts over. */
export function cached<K, V>(cache: Map<K, V>, key: K, make: () => V, limit = Number.POSITIVE_INFINITY): V {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size > limit) cache.clear();
    value = make();
    cache.set(key, value);
  }
  return value;
}

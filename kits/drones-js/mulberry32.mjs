// mulberry32, the seeded Math.random of GameOfDrones bots (spec 7.4): one unsigned 32-bit state,
// all arithmetic mod 2^32. Shared by the adapter and the reference harness.
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function random() {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

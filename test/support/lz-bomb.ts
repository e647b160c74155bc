// A crafted lz-string (lz64) stream: one literal, then `codes` codes that each name the dictionary entry
// they are about to create (w + w[0]), so the outputs are 2, 3, 4 … characters long and the whole output
// is about codes²/2 characters. lz-string's own compressor never writes this; a hostile client can.
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/='

export function lzBomb(codes: number): string {
  let out = ''
  let val = 0
  let filled = 0
  const write = (value: number, bits: number): void => {
    for (let i = 0; i < bits; i++) {
      val = (val << 1) | ((value >> i) & 1)
      if (++filled === 6) {
        out += BASE64[val]
        val = 0
        filled = 0
      }
    }
  }
  write(0, 2) // an 8-bit literal
  write(97, 8) // 'a'
  let dictSize = 4
  let numBits = 3
  let enlargeIn = 4
  for (let i = 0; i < codes; i++) {
    write(dictSize, numBits)
    dictSize++
    if (--enlargeIn === 0) enlargeIn = 2 ** numBits++
  }
  write(2, numBits) // end of stream
  write(0, 6 - filled + 6) // flush, plus one more character: the decoder reads one ahead
  return out
}

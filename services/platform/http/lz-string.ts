// lz-string's decompressFromBase64 with an output cap. The library has no cap and builds its dictionary from
// string concatenations: ~100,000 crafted codes, each naming the entry it is about to create, make outputs
// of 1, 2, 3 … characters, and 256 KB of input asks for billions of characters (V8 runs out of heap). This
// decoder reads the same bit stream (the format is pieroxy/lz-string 1.x, which posthog-js sends as `lz64`)
// and stops as soon as the output would pass `maxChars`. Every dictionary entry is a slice of the output so
// far (LZW: the previous piece plus the next character, which follows it in the output), so the dictionary
// is two integer arrays and memory stays proportional to the output.

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/='
// lz-string reads a character outside its alphabet (and the input's end) as zero bits; '=' is 64, whose bit
// is never read with 6-bit characters. -1 marks those as 0 here too.
const VALUE = new Int8Array(128).fill(-1)
for (let i = 0; i < BASE64.length; i++) VALUE[BASE64.charCodeAt(i)] = i

export class LzOutputTooLarge extends Error {
  constructor(readonly maxChars: number) {
    super(`lz-string output exceeds ${maxChars} characters`)
  }
}

/**
 * The text lz-string's `decompressFromBase64(input)` returns, or null where it returns null or '' (a stream
 * that is cut short, names an entry that does not exist, or holds nothing). Throws LzOutputTooLarge when the
 * output would pass `maxChars` UTF-16 units, before it is built. `yieldEvery` output characters, it awaits a
 * macrotask so one large body does not hold the event loop for its whole decoding.
 */
export async function decompressLzBase64(input: string, maxChars: number, yieldEvery = 1 << 20): Promise<string | null> {
  const length = input.length
  // The bit reader, inlined below (closures would put these in a context and slow every read threefold).
  let val = charValue(input, 0)
  let position = 32
  let index = 1

  let out: Uint16Array = new Uint16Array(Math.min(maxChars, Math.max(1024, length * 4)))
  let outLength = 0
  // Entry k of the dictionary is out[start[k] .. start[k] + size[k]]; 0–2 are the literal/end codes.
  let start: Int32Array = new Int32Array(1024)
  let size: Int32Array = new Int32Array(1024)
  let dictSize = 3
  let numBits = 2 // the first code: a literal, or the end
  let enlargeIn = 4
  let wStart = -1
  let wSize = 0
  let nextYield = yieldEvery

  for (;;) {
    if (wStart >= 0 && index > length) return null
    let c = 0
    for (let power = 0; power < numBits; power++) {
      if (val & position) c |= 1 << power
      position >>= 1
      if (position === 0) {
        position = 32
        val = charValue(input, index++)
      }
    }
    if (c === 2) break
    let entryStart: number
    let entrySize: number
    if (c < 2) {
      let char = 0
      for (let power = 0, bits = c === 0 ? 8 : 16; power < bits; power++) {
        if (val & position) char |= 1 << power
        position >>= 1
        if (position === 0) {
          position = 32
          val = charValue(input, index++)
        }
      }
      if (outLength + 1 > maxChars) throw new LzOutputTooLarge(maxChars)
      if (outLength === out.length) out = grow(out, outLength, outLength + 1, maxChars)
      out[outLength] = char
      entryStart = outLength
      entrySize = 1
    } else if (wStart < 0) {
      // lz-string reads an unset variable for a first code of 3 and emits the text "undefined" from it; no
      // compressor writes that, so it is refused here.
      return null
    } else if (c < dictSize) {
      entryStart = start[c]
      entrySize = size[c]
    } else if (c === dictSize) {
      entryStart = wStart // w + w[0]
      entrySize = wSize + 1
    } else {
      return null
    }
    if (c >= 2) {
      if (outLength + entrySize > maxChars) throw new LzOutputTooLarge(maxChars)
      if (outLength + entrySize > out.length) out = grow(out, outLength, outLength + entrySize, maxChars)
      // Short pieces by hand (copyWithin costs more than it saves below ~64 units). For w + w[0] the loop's last
      // step reads the unit it wrote first, which is w[0].
      if (entrySize > 64) {
        const copied = c === dictSize ? wSize : entrySize
        out.copyWithin(outLength, entryStart, entryStart + copied)
        if (c === dictSize) out[outLength + wSize] = out[wStart]
      } else {
        for (let i = 0; i < entrySize; i++) out[outLength + i] = out[entryStart + i]
      }
    }
    if (dictSize + 2 > start.length) {
      start = widen(start)
      size = widen(size)
    }
    if (c < 2) {
      // A literal is an entry of its own, then the piece it is output as.
      start[dictSize] = outLength
      size[dictSize++] = 1
      if (wStart >= 0 && --enlargeIn === 0) enlargeIn = 2 ** numBits++
    }
    if (wStart < 0) {
      numBits = 3
    } else {
      // The new entry, w + entry[0], is the previous piece and the character right after it.
      start[dictSize] = wStart
      size[dictSize++] = wSize + 1
      if (--enlargeIn === 0) enlargeIn = 2 ** numBits++
    }
    wStart = outLength
    wSize = entrySize
    outLength += entrySize
    if (outLength >= nextYield) {
      nextYield = outLength + yieldEvery
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  return outLength === 0 ? null : toText(out, outLength)
}

/**
 * Past this many units the output array grows to the cap at once: a zeroed array that large is mapped, not written,
 * so only the pages the output reaches are touched. Doubling on to the cap touched and copied into every array on
 * the way: a body that decodes to the cap took 40% more CPU. Below it, doubling keeps small outputs small.
 */
const GROW_TO_CAP_UNITS = 1 << 20

function grow(out: Uint16Array, used: number, needed: number, maxChars: number): Uint16Array {
  const units = out.length >= GROW_TO_CAP_UNITS ? maxChars : Math.min(maxChars, Math.max(out.length * 2, needed))
  const grown = new Uint16Array(units)
  grown.set(out.subarray(0, used))
  return grown
}

function widen(array: Int32Array): Int32Array {
  const wider = new Int32Array(array.length * 2)
  wider.set(array)
  return wider
}

function charValue(input: string, i: number): number {
  const code = input.charCodeAt(i)
  return code < 128 ? Math.max(VALUE[code], 0) : 0
}

/** UTF-16 units to a string, lone surrogates kept as lz-string keeps them (TextDecoder would replace them). */
function toText(units: Uint16Array, length: number): string {
  return Buffer.from(units.buffer, units.byteOffset, length * 2).toString('utf16le')
}

import lzString from 'lz-string'
import { describe, expect, it } from 'vitest'
import { lzBomb } from '../../../test/support/lz-bomb'
import { decompressLzBase64, LzOutputTooLarge } from './lz-string'

// A seeded generator, so a failure names an input that can be replayed.
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** What lz-string itself answers, with '' (cut short, or empty) and a thrown error read as null like ours. */
function reference(input: string): string | null {
  try {
    return lzString.decompressFromBase64(input) || null
  } catch {
    return null
  }
}

/** A batch as posthog-js sent it with compression=lz64 (`LZString.compressToBase64(JSON.stringify(batch))`). */
function posthogJsBatch(events: number, random: () => number): unknown[] {
  return Array.from({ length: events }, (_, i) => ({
    event: i % 3 === 0 ? '$autocapture' : '$pageview',
    properties: {
      $os: 'Mac OS X',
      $browser: 'Chrome',
      $device_type: 'Desktop',
      $current_url: `https://shop.example/products/${Math.floor(random() * 1000)}?utm_source=news&ref=ü`,
      $host: 'shop.example',
      $pathname: '/products',
      $browser_version: 126,
      $screen_height: 1117,
      $screen_width: 1728,
      $lib: 'web',
      $lib_version: '1.96.1',
      $insert_id: Math.floor(random() * 2 ** 48).toString(36),
      $time: 1_717_000_000 + i,
      distinct_id: '018f1a2b-3c4d-7e5f-8a9b-0c1d2e3f4a5b',
      $device_id: '018f1a2b-3c4d-7e5f-8a9b-0c1d2e3f4a5b',
      $session_id: '018f1a2b-9999-7e5f-8a9b-0c1d2e3f4a5b',
      $window_id: '018f1a2b-8888-7e5f-8a9b-0c1d2e3f4a5b',
      title: 'Boutique — Café ☕ 日本語 🐦',
      $elements:
        i % 3 === 0
          ? [
              {
                tag_name: 'button',
                $el_text: 'Add to cart',
                classes: ['btn', 'btn-primary'],
                attr__class: 'btn btn-primary',
                nth_child: 2,
                nth_of_type: 1,
              },
            ]
          : undefined,
      token: 'phc_0123456789abcdefghijklmnopqrstuvwxyzABCDE',
    },
    timestamp: new Date(Date.UTC(2024, 4, 29, 12, 0, i)).toISOString(),
  }))
}

function randomText(random: () => number, length: number): string {
  const units: number[] = []
  for (let i = 0; i < length; i++) {
    const r = random()
    // Mostly ASCII with repeats (so the dictionary is used), some BMP, astral pairs and lone surrogates.
    if (r < 0.6) units.push(97 + Math.floor(random() * 4))
    else if (r < 0.8) units.push(32 + Math.floor(random() * 95))
    else if (r < 0.9) units.push(Math.floor(random() * 0xd800))
    else if (r < 0.97) units.push(0xd83d, 0xdc00 + Math.floor(random() * 0x400))
    else units.push(0xd800 + Math.floor(random() * 0x800))
  }
  return String.fromCharCode(...units)
}

/** The stream's first 2-bit code: the first character's top two bits, low bit first (outside the alphabet: 0). */
function firstCode(input: string): number {
  const value = Math.max('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.indexOf(input[0]), 0)
  return (value & 32 ? 1 : 0) | (value & 16 ? 2 : 0)
}

describe('decompressLzBase64', () => {
  it('decodes posthog-js lz64 batches exactly as lz-string does', async () => {
    const random = prng(1)
    for (const size of [1, 10, 50, 400]) {
      const json = JSON.stringify(posthogJsBatch(size, random))
      const compressed = lzString.compressToBase64(json)
      expect(await decompressLzBase64(compressed, 1 << 30)).toBe(json)
    }
  })

  it('agrees with lz-string on random texts, random bytes and corrupted streams', async () => {
    const random = prng(2)
    const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/= !*é'
    let decodedByBoth = 0
    for (let i = 0; i < 600; i++) {
      const text = randomText(random, Math.floor(random() * 3000))
      const compressed = lzString.compressToBase64(text)
      expect(await decompressLzBase64(compressed, 1 << 30)).toBe(reference(compressed))

      const garbage = Array.from({ length: 1 + Math.floor(random() * 64) }, () => b64[Math.floor(random() * b64.length)]).join('')
      const corrupted = [...compressed]
        .map((ch) => (random() < 0.002 ? b64[Math.floor(random() * 64)] : ch))
        .join('')
        .slice(0, Math.floor(compressed.length * (0.5 + random())))
      for (const input of [garbage, corrupted]) {
        const expected = reference(input)
        const ours = await decompressLzBase64(input, 1 << 30)
        // lz-string's only divergence by design: a first code of 3 reads an unset variable (refused here).
        if (firstCode(input) === 3) expect(ours).toBeNull()
        else expect(ours).toBe(expected)
        if (ours !== null) decodedByBoth++
      }
    }
    expect(decodedByBoth).toBeGreaterThan(100)
  })

  it('stops a crafted 256 KB stream at the cap instead of building ~5 billion characters', async () => {
    const bomb = lzBomb(100_000)
    expect(bomb.length).toBeGreaterThan(250_000)
    // The same stream, small enough for lz-string itself: outputs of 2, 3, 4 … characters.
    expect(await decompressLzBase64(lzBomb(300), 1 << 30)).toBe(reference(lzBomb(300)))
    const err = await decompressLzBase64(bomb, 20 * 1024 * 1024).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(LzOutputTooLarge)
  })

  it('allows output up to the cap exactly', async () => {
    const text = 'abc'.repeat(1000)
    const compressed = lzString.compressToBase64(text)
    expect(await decompressLzBase64(compressed, 3000)).toBe(text)
    await expect(decompressLzBase64(compressed, 2999)).rejects.toBeInstanceOf(LzOutputTooLarge)
  })
})

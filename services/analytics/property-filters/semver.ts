// Semver operators with the server's leniency (reference §3.3): a leading `v` and whitespace are
// dropped, missing minor/patch are padded with 0 and leading zeros are stripped (`3.08` → 3.8.0);
// pre-release ordering follows the spec. Comparison and ranges come from npm's `semver`.
import semver from 'semver'

function stripZeros(part: string): string {
  if (part === '' || !/^\d+$/.test(part)) return part
  const trimmed = part.replace(/^0+/, '')
  return trimmed === '' ? '0' : trimmed
}

function normalize(text: string): string {
  return (text.startsWith('v') ? text.slice(1) : text).trim()
}

function canonical(version: string): string {
  const cut = version.search(/[-+]/)
  const core = cut === -1 ? version : version.slice(0, cut)
  const suffix = cut === -1 ? '' : version.slice(cut)
  const parts = core.split('.').map(stripZeros)
  while (parts.length < 3) parts.push('0')
  return parts.join('.') + suffix
}

export function parseVersion(text: string): semver.SemVer | null {
  const c = canonical(normalize(text))
  // The crate accepts exactly MAJOR.MINOR.PATCH[-pre][+build]; npm's parser agrees in strict mode.
  if (!/^\d+\.\d+\.\d+(?:[-+].*)?$/.test(c)) return null
  return semver.parse(c, { loose: false })
}

export type SemverCompare = 'semver_eq' | 'semver_neq' | 'semver_gt' | 'semver_gte' | 'semver_lt' | 'semver_lte'
export type SemverRange = 'semver_tilde' | 'semver_caret' | 'semver_wildcard'

export function compareVersions(op: SemverCompare, value: semver.SemVer, target: semver.SemVer): boolean {
  const c = semver.compare(value, target)
  switch (op) {
    case 'semver_eq':
      return c === 0
    case 'semver_neq':
      return c !== 0
    case 'semver_gt':
      return c > 0
    case 'semver_gte':
      return c >= 0
    case 'semver_lt':
      return c < 0
    case 'semver_lte':
      return c <= 0
  }
}

/** The range for a tilde/caret/wildcard filter value, or null when the filter value is not valid. */
export function rangeFor(op: SemverRange, filterValue: string): semver.Range | null {
  const text = normalize(filterValue)
  let range: string
  if (op === 'semver_wildcard') {
    const parts = text.split('.').map(stripZeros)
    // Digits first, then only wildcards: `1.2.*`, `1.*`, `*`; `1.*.3` is invalid.
    const firstStar = parts.indexOf('*')
    if (parts.length > 3 || parts.some((p, i) => (firstStar !== -1 && i >= firstStar ? p !== '*' : !/^\d+$/.test(p)))) return null
    range = parts.map((p) => (p === '*' ? 'x' : p)).join('.')
  } else {
    const version = parseVersion(text)
    if (!version) return null
    range = (op === 'semver_tilde' ? '~' : '^') + version.version
  }
  try {
    return new semver.Range(range)
  } catch {
    return null
  }
}

export function inRange(value: semver.SemVer, range: semver.Range): boolean {
  return range.test(value)
}

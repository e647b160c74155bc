// A button that copies a text to the clipboard (a snippet, a new key's secret) and says so once it has.
import { useState } from 'preact/hooks'

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false)
  const copy = () =>
    navigator.clipboard?.writeText(text).then(
      () => setCopied(true),
      () => undefined,
    )
  return (
    <>
      <button type="button" class="secondary small" onClick={copy}>
        {label}
      </button>
      {copied ? <span class="ok">Copied.</span> : null}
    </>
  )
}

// Showing what the API answers: times, JSON, and a table of properties.

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '–'
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' })
}

export function JsonView({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>
}

/** A table of properties (key, value), sorted by key. */
export function PropertiesTable({ properties }: { properties: Record<string, unknown> }) {
  const keys = Object.keys(properties).sort()
  if (!keys.length) return <p class="muted">No properties.</p>
  return (
    <table class="props">
      <tbody>
        {keys.map((k) => (
          <tr>
            <th scope="row">{k}</th>
            <td>{typeof properties[k] === 'string' ? (properties[k] as string) : JSON.stringify(properties[k])}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

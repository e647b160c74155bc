// A HogQL query's answer as a table: each column's name with its ClickHouse type, then the rows. The SQL page
// and a dashboard's SQL tiles draw it; `compact`: a tile's size (its first rows, long values cut).
import { cellText, typeOf, type SqlAnswer } from '../sql'

/** The rows a tile shows; the rest are counted under it. */
const TILE_ROWS = 10
const NUMERIC = /^(Nullable\()?(U?Int|Float|Decimal)/

export function SqlResult({ answer, compact = false }: { answer: SqlAnswer; compact?: boolean }) {
  const rows = compact ? answer.results.slice(0, TILE_ROWS) : answer.results
  const numeric = answer.columns.map((_, i) => NUMERIC.test(typeOf(answer.types, i)))
  const count = answer.results.length
  return (
    <div class="sql-result" data-testid="sql-result" data-rows={count}>
      <div class="scroll">
        <table class={compact ? 'list sql-table compact' : 'list sql-table'}>
          <thead>
            <tr>
              {answer.columns.map((column, i) => (
                <th class={numeric[i] ? 'num' : ''} data-column={column} data-type={typeOf(answer.types, i)}>
                  <span class="column-name">{column}</span>
                  <span class="column-type">{typeOf(answer.types, i)}</span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr>
                {answer.columns.map((_, i) => {
                  const value = row[i]
                  const text = cellText(value)
                  return (
                    <td class={`${numeric[i] ? 'num' : ''}${value === null ? ' null' : ''}`} title={compact ? text : undefined}>
                      {text}
                    </td>
                  )
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="muted small result-count" data-testid="result-count">
        {count === 0
          ? 'No rows.'
          : compact && count > rows.length
            ? `${rows.length} of ${count} rows`
            : `${count} ${count === 1 ? 'row' : 'rows'}${answer.hasMore ? ' — more rows exist: add a LIMIT (up to 50,000) or narrow the query' : ''}`}
      </p>
    </div>
  )
}

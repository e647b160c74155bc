// Query parameters for parameterized ClickHouse SQL: values only ever enter a query as `{pN:Type}`.

export class SqlParams {
  readonly values: Record<string, unknown> = {}
  private n = 0
  add(type: string, value: unknown): string {
    const name = `p${this.n++}`
    this.values[name] = value
    return `{${name}:${type}}`
  }
}

// Run by ./run-setup.ts in a process of its own: migrates a chDB in <dir>/clickhouse, as Wren's start does.
import { migrate, openEmbeddedClickHouse } from '../../services/platform/clickhouse'

const dir = process.argv[2]
if (!dir) throw new Error('usage: migrate-template.ts <data dir>')
const client = await openEmbeddedClickHouse(dir)
await migrate(client)
await client.close()

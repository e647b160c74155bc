// Surveys: questions posthog-js shows on your site (services/surveys/). The list with each survey's state, and a
// survey's page: its questions edited (open, link, rating, single and multiple choice), the page it shows on, launch
// and stop, and once people answer, its stats (shown, dismissed, sent, rates) and the responses themselves, read
// from the `survey sent` events through the Query API.
import { useState } from 'preact/hooks'
import { get, patch, post, WHOLE_LIST, withQuery } from '../api'
import type { Paginated } from '../answers'
import { NameFields } from '../components/editor'
import { Empty, ErrorBox, Loading } from '../components/feedback'
import { ListHeader, PageHeader } from '../components/headers'
import { Listing } from '../components/listing'
import { useAction, useLoad } from '../components/load'
import { navigate } from '../router'
import { useSession } from '../session'

type QuestionType = 'open' | 'link' | 'rating' | 'single_choice' | 'multiple_choice'
interface Question {
  id?: string
  type: QuestionType
  question: string
  description?: string
  choices?: string[]
  hasOpenChoice?: boolean
  scale?: number
  display?: 'number' | 'emoji'
  lowerBoundLabel?: string
  upperBoundLabel?: string
  link?: string
  buttonText?: string
}
interface Survey {
  id: string
  name: string
  description: string
  type: 'popover' | 'widget' | 'api' | 'external_survey'
  questions: Question[] | null
  conditions: { url?: string; urlMatchType?: string } | null
  start_date: string | null
  end_date: string | null
  archived: boolean
  created_at: string
}
interface EventStats {
  total_count: number
  unique_persons: number
  first_seen: string | null
  last_seen: string | null
}
interface Stats {
  stats: Record<'survey shown' | 'survey dismissed' | 'survey sent', EventStats>
  rates: { response_rate: number; dismissal_rate: number; unique_users_response_rate: number }
}

const QUESTION_TYPES: Array<[QuestionType, string]> = [
  ['open', 'Open text'],
  ['rating', 'Rating'],
  ['single_choice', 'Single choice'],
  ['multiple_choice', 'Multiple choice'],
  ['link', 'Link'],
]
const TYPES: Array<[Survey['type'], string]> = [
  ['popover', 'Popover (posthog-js shows it)'],
  ['widget', 'Widget (behind a button)'],
  ['api', 'API (your own UI)'],
]

function status(s: Survey): string {
  if (s.archived) return 'Archived'
  if (!s.start_date) return 'Draft'
  return s.end_date ? 'Stopped' : 'Running'
}

export function SurveysPage() {
  const { path, base, can } = useSession()
  const surveys = useLoad(() => get<Paginated<Survey>>(withQuery(path('surveys/'), { limit: WHOLE_LIST })), [])
  const counts = useLoad(() => get<Record<string, number>>(path('surveys/responses_count/')), [])
  return (
    <div>
      <ListHeader title="Surveys" create={can('survey:write') ? { href: `${base}/surveys/new`, label: 'New survey' } : null} />
      <Listing
        loaded={surveys}
        empty={
          <Empty title="No surveys yet.">
            <p>
              A survey asks the people on your site a few questions: posthog-js shows it once it is launched, and their answers are counted
              here.
            </p>
          </Empty>
        }
        head={
          <>
            <th>Name</th>
            <th>Status</th>
            <th>Questions</th>
            <th class="num">Responses</th>
          </>
        }
        row={(s) => (
          <tr>
            <td>
              <a href={`${base}/surveys/${s.id}`}>{s.name}</a>
            </td>
            <td>
              <span class={`tag survey-status ${status(s).toLowerCase()}`}>{status(s)}</span>
            </td>
            <td>{s.questions?.length ?? 0}</td>
            <td class="num">{counts.data ? (counts.data[s.id] ?? 0) : '…'}</td>
          </tr>
        )}
      />
    </div>
  )
}

export function SurveyPage({ id }: { id: string }) {
  const { path } = useSession()
  const survey = useLoad(() => (id === 'new' ? Promise.resolve(null) : get<Survey>(path(`surveys/${encodeURIComponent(id)}/`))), [id])
  if (survey.error) return <ErrorBox error={survey.error} />
  if (survey.loading) return <Loading />
  return (
    <>
      <SurveyEditor survey={survey.data} onSaved={survey.reload} />
      {survey.data ? <SurveyResults survey={survey.data} /> : null}
    </>
  )
}

const blankQuestion = (type: QuestionType = 'open'): Question => ({ type, question: '' })

/** The survey's conditions with the page URL the editor sets (the ones it does not edit, such as events, kept). */
function conditionsWith(conditions: Survey['conditions'], url: string): Survey['conditions'] {
  const { url: _url, urlMatchType: _match, ...others } = conditions ?? {}
  if (url) return { ...others, url, urlMatchType: conditions?.url ? (conditions.urlMatchType ?? 'icontains') : 'icontains' }
  return Object.keys(others).length ? others : null
}

/** A response as the table shows it: a multiple choice's list as its choices, comma-separated. */
function responseText(cell: unknown): string {
  if (cell === null || cell === undefined) return ''
  const text = String(cell)
  if (!text.startsWith('[')) return text
  try {
    const list: unknown = JSON.parse(text)
    return Array.isArray(list) ? list.map(String).join(', ') : text
  } catch {
    return text
  }
}

/** A question as the API takes it: only what its type uses. */
function questionBody(q: Question): Question {
  const base: Question = { ...(q.id ? { id: q.id } : {}), type: q.type, question: q.question.trim() }
  if (q.description?.trim()) base.description = q.description.trim()
  if (q.type === 'rating')
    return {
      ...base,
      scale: q.scale ?? 5,
      display: q.display ?? 'number',
      lowerBoundLabel: q.lowerBoundLabel ?? '',
      upperBoundLabel: q.upperBoundLabel ?? '',
    }
  if (q.type === 'single_choice' || q.type === 'multiple_choice')
    return { ...base, choices: (q.choices ?? []).map((c) => c.trim()).filter(Boolean), hasOpenChoice: q.hasOpenChoice ?? false }
  if (q.type === 'link') return { ...base, link: q.link?.trim() ?? '', buttonText: q.buttonText ?? '' }
  return base
}

function SurveyEditor({ survey, onSaved }: { survey: Survey | null; onSaved: () => void }) {
  const { path, base, can } = useSession()
  const [name, setName] = useState(survey?.name ?? '')
  const [description, setDescription] = useState(survey?.description ?? '')
  const [type, setType] = useState<Survey['type']>(survey?.type ?? 'popover')
  const [url, setUrl] = useState(survey?.conditions?.url ?? '')
  const [questions, setQuestions] = useState<Question[]>(survey?.questions?.length ? survey.questions : [blankQuestion()])
  const [error, busy, run] = useAction()
  const writable = can('survey:write')
  const setQuestion = (i: number, change: Partial<Question>) => setQuestions(questions.map((q, j) => (j === i ? { ...q, ...change } : q)))
  const save = (event: Event) => {
    event.preventDefault()
    void run(async () => {
      const body = {
        name,
        description,
        type,
        questions: questions.map(questionBody),
        conditions: conditionsWith(survey?.conditions ?? null, url.trim()),
      }
      if (survey) {
        await patch(path(`surveys/${survey.id}/`), body)
        onSaved()
      } else {
        const made = await post<Survey>(path('surveys/'), body)
        navigate(`${base}/surveys/${made.id}`)
      }
    })
  }
  const setDates = (dates: { start_date?: string | null; end_date?: string | null }) =>
    void run(async () => {
      await patch(path(`surveys/${survey!.id}/`), dates)
      onSaved()
    })
  const state = survey ? status(survey) : null
  return (
    <form onSubmit={save}>
      <PageHeader title={survey ? `Survey ${survey.name}` : 'New survey'}>
        {survey && writable ? (
          <>
            <span class={`tag survey-status ${state!.toLowerCase()}`} aria-label="Status">
              {state}
            </span>
            {state === 'Draft' ? (
              <button type="button" disabled={busy} onClick={() => setDates({ start_date: new Date().toISOString() })}>
                Launch
              </button>
            ) : null}
            {state === 'Running' ? (
              <button type="button" class="secondary" disabled={busy} onClick={() => setDates({ end_date: new Date().toISOString() })}>
                Stop
              </button>
            ) : null}
            {state === 'Stopped' ? (
              <button type="button" class="secondary" disabled={busy} onClick={() => setDates({ end_date: null })}>
                Resume
              </button>
            ) : null}
          </>
        ) : null}
      </PageHeader>
      <ErrorBox error={error} />
      <section class="card grid">
        <NameFields name={name} description={description} onName={setName} onDescription={setDescription} />
        <label>
          Shown as
          <select name="type" value={type} onChange={(e) => setType(e.currentTarget.value as Survey['type'])}>
            {TYPES.map(([value, label]) => (
              <option value={value}>{label}</option>
            ))}
          </select>
        </label>
        <label>
          On pages whose URL contains
          <input name="url" placeholder="(any page)" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
      </section>
      {questions.map((q, i) => (
        <section class="card survey-question" key={i} aria-label={`Question ${i + 1}`}>
          <div class="inline">
            <strong>Question {i + 1}</strong>
            <select
              aria-label={`Question ${i + 1} type`}
              value={q.type}
              onChange={(e) => setQuestion(i, { type: e.currentTarget.value as QuestionType })}
            >
              {QUESTION_TYPES.map(([value, label]) => (
                <option value={value}>{label}</option>
              ))}
            </select>
            {questions.length > 1 ? (
              <button type="button" class="link" onClick={() => setQuestions(questions.filter((_, j) => j !== i))}>
                Remove
              </button>
            ) : null}
          </div>
          <label>
            Question
            <input
              aria-label={`Question ${i + 1} text`}
              required
              value={q.question}
              onInput={(e) => setQuestion(i, { question: e.currentTarget.value })}
            />
          </label>
          {q.type === 'rating' ? (
            <div class="inline">
              <label class="inline-label">
                Scale
                <select
                  aria-label={`Question ${i + 1} scale`}
                  value={String(q.scale ?? 5)}
                  onChange={(e) => setQuestion(i, { scale: Number(e.currentTarget.value) })}
                >
                  {[3, 5, 7, 10].map((n) => (
                    <option value={String(n)}>1–{n === 10 ? '10 (0–10)' : n}</option>
                  ))}
                </select>
              </label>
              <label class="inline-label">
                As
                <select
                  aria-label={`Question ${i + 1} display`}
                  value={q.display ?? 'number'}
                  onChange={(e) => setQuestion(i, { display: e.currentTarget.value as 'number' | 'emoji' })}
                >
                  <option value="number">numbers</option>
                  <option value="emoji">emoji</option>
                </select>
              </label>
            </div>
          ) : null}
          {q.type === 'single_choice' || q.type === 'multiple_choice' ? (
            <>
              <label>
                Choices, one a line
                <textarea
                  aria-label={`Question ${i + 1} choices`}
                  rows={3}
                  value={(q.choices ?? []).join('\n')}
                  onInput={(e) => setQuestion(i, { choices: e.currentTarget.value.split('\n') })}
                />
              </label>
              <label class="inline-label">
                <input
                  type="checkbox"
                  checked={q.hasOpenChoice ?? false}
                  onChange={(e) => setQuestion(i, { hasOpenChoice: e.currentTarget.checked })}
                />
                The last choice takes the person’s own words
              </label>
            </>
          ) : null}
          {q.type === 'link' ? (
            <label>
              Link (https or mailto)
              <input
                aria-label={`Question ${i + 1} link`}
                value={q.link ?? ''}
                onInput={(e) => setQuestion(i, { link: e.currentTarget.value })}
              />
            </label>
          ) : null}
        </section>
      ))}
      <button type="button" class="secondary small" onClick={() => setQuestions([...questions, blankQuestion()])}>
        + Add a question
      </button>
      <div class="form-actions">
        <button type="submit" disabled={busy || !writable}>
          {survey ? 'Save' : 'Create survey'}
        </button>
        <a class="button secondary" href={`${base}/surveys`}>
          Back to surveys
        </a>
      </div>
    </form>
  )
}

/** A HogQL string literal. */
const literal = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`

function SurveyResults({ survey }: { survey: Survey }) {
  const { path } = useSession()
  const questions = survey.questions ?? []
  const stats = useLoad(() => get<Stats>(path(`surveys/${survey.id}/stats/`)), [survey.id])
  const responses = useLoad(
    () =>
      post<{ results: unknown[][] }>(path('query/'), {
        query: {
          kind: 'HogQLQuery',
          query: `SELECT distinct_id, timestamp${questions.map((q) => `, properties[${literal(`$survey_response_${q.id}`)}]`).join('')}
            FROM events WHERE event = 'survey sent' AND properties.$survey_id = ${literal(survey.id)} ORDER BY timestamp DESC LIMIT 100`,
        },
      }),
    [survey.id, questions.length],
  )
  const figures = stats.data
  const count = (event: keyof Stats['stats']) => figures?.stats[event]
  return (
    <section aria-label="Results">
      <h2>Results</h2>
      <ErrorBox error={stats.error ?? responses.error} />
      {figures ? (
        <div class="card survey-stats" aria-label="Stats">
          {(
            [
              ['Shown', count('survey shown')],
              ['Dismissed', count('survey dismissed')],
              ['Sent', count('survey sent')],
            ] as const
          ).map(([label, s]) => (
            <div class="figure">
              <span class="muted small">{label}</span>
              <strong>{s?.total_count ?? 0}</strong>
              <span class="muted small">{s?.unique_persons ?? 0} people</span>
            </div>
          ))}
          <div class="figure">
            <span class="muted small">Response rate</span>
            <strong>{figures.rates.response_rate}%</strong>
            <span class="muted small">{figures.rates.unique_users_response_rate}% of people</span>
          </div>
        </div>
      ) : null}
      {responses.data && responses.data.results.length === 0 ? <p class="muted">No responses yet.</p> : null}
      {responses.data && responses.data.results.length > 0 ? (
        <div class="card scroll">
          <table class="list" aria-label="Responses">
            <thead>
              <tr>
                <th>Person</th>
                <th>When</th>
                {questions.map((q) => (
                  <th>{q.question}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {responses.data.results.map((row) => (
                <tr>
                  {row.map((cell, i) => (
                    <td>{i === 1 ? new Date(String(cell)).toLocaleString() : responseText(cell)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  )
}

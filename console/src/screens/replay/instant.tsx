import { useEffect, useState, type FormEvent } from 'react';
import { t } from '../../i18n';
import { Input } from '../../ui/forms';

/**
 * The instant a replay shows: an event chosen on the timeline (its own recorded_at, the instant whose
 * as_of includes it), or an exact instant typed by the auditor. Starts at the newest event.
 */
export const useReplayInstant = (events: readonly { recorded_at: string }[]) => {
  const [choice, setChoice] = useState<{ index: number } | { instant: string } | null>(null);
  const last = events.length - 1;
  const select = (index: number) => setChoice({ index });
  const at = (instant: string) => setChoice({ instant });
  useEffect(() => {
    if (choice === null && last >= 0) setChoice({ index: last });
  }, [last, choice]);
  if (choice === null || last < 0) return { index: Math.max(last, 0), asOf: events[last]?.recorded_at, select, at };
  if ('index' in choice) {
    const index = Math.min(choice.index, last);
    return { index, asOf: events[index]?.recorded_at, select, at };
  }
  // The last event recorded at or before the typed instant (-1: before the first).
  const index = events.findLastIndex((e) => e.recorded_at <= choice.instant);
  return { index, asOf: choice.instant, select, at };
};

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
/** An instant as the browser's local date-time input reads it (to the millisecond). */
const localInput = (iso: string | undefined) => {
  if (!iso) return '';
  const d = new Date(iso);
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
  );
};

/** Types an exact instant (local time, to the millisecond); the replay then asks the API as of it. */
export const InstantForm = ({ asOf, onInstant }: { asOf: string | undefined; onInstant: (iso: string) => void }) => {
  const [value, setValue] = useState(localInput(asOf));
  useEffect(() => setValue(localInput(asOf)), [asOf]);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const d = new Date(value);
    if (!Number.isNaN(d.getTime())) onInstant(d.toISOString());
  };
  return (
    <form className="row" onSubmit={submit}>
      <Input
        label={t.replay.exactInstant}
        type="datetime-local"
        step="0.001"
        value={value}
        title={t.replay.exactInstantHint}
        onChange={(e) => setValue(e.currentTarget.value)}
      />
      <button type="submit">{t.common.go}</button>
    </form>
  );
};

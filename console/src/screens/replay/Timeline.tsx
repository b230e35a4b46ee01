import { fmt, t } from '../../i18n';

export interface TimelineEvent {
  key: string;
  type: string;
  at: string;
  actor?: string;
  correlation?: string | null;
}

/**
 * The events of one stream, oldest first, and the instant chosen among them: a slider over the events
 * and a list whose items choose the same instant when clicked. Everything after it is dimmed.
 */
export const Timeline = ({
  events,
  index,
  onSelect,
  label,
}: {
  events: TimelineEvent[];
  index: number;
  onSelect: (i: number) => void;
  label: string;
}) => {
  const current = events[index];
  return (
    <div className="stack">
      <div className="slider">
        <label htmlFor="replay-slider">{t.replay.slider}</label>
        <input
          id="replay-slider"
          type="range"
          min={0}
          max={Math.max(0, events.length - 1)}
          step={1}
          value={Math.max(index, 0)}
          aria-valuetext={current ? `${index + 1}/${events.length}: ${current.type}, ${fmt.dateTime(current.at)}` : ''}
          onChange={(e) => onSelect(Number(e.currentTarget.value))}
        />
        <span className="muted" aria-live="polite">
          {t.replay.asOf} {current ? fmt.dateTime(current.at) : '—'} ({Math.max(index + 1, 0)}/{events.length})
        </span>
      </div>
      <ol className="timeline" aria-label={label}>
        {events.map((e, i) => (
          <li key={e.key} className={i > index ? 'after' : undefined}>
            <button type="button" aria-current={i === index ? 'true' : undefined} onClick={() => onSelect(i)}>
              <strong>{e.type}</strong>
              <span className="meta">
                {t.replay.time}: {fmt.dateTime(e.at)}
                {e.actor !== undefined && ` · ${t.replay.actor}: ${e.actor}`}
                {e.correlation && ` · ${t.replay.correlation}: ${e.correlation}`}
              </span>
            </button>
          </li>
        ))}
      </ol>
    </div>
  );
};

/** Who acted: by name as the API resolves it, with the role; role and id when the name is unknown. */
export const actorOf = (a: { id: number | string | null; role: string; name?: string | null } | null) => {
  if (!a) return t.replay.system;
  const role = t.replay.roles[a.role as keyof typeof t.replay.roles] ?? a.role;
  return a.name ? `${a.name} (${role})` : `${role}${a.id !== null ? ` #${a.id}` : ''}`;
};

import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { client, unwrap } from '../api/client';
import { t } from '../i18n';
import { useDebounced } from './useDebounced';

export type PickerKind = 'city' | 'driver' | 'client';
type Option = { id: number; text: string };

/** Options as the operator types: drivers and clients searched by the API's `q`, cities from the list. */
const search = async (kind: PickerKind, q: string): Promise<Option[]> => {
  if (kind === 'city') {
    const { cities } = await unwrap(client.GET('/cities'));
    const plain = (s: string) =>
      s
        .toLowerCase()
        .normalize('NFD')
        .replace(/\p{Diacritic}/gu, '');
    return cities.filter((c) => plain(c.name).includes(plain(q))).map((c) => ({ id: c.id, text: c.name }));
  }
  if (q.length < 2) return [];
  if (kind === 'driver') {
    const r = await unwrap(client.GET('/admin/drivers', { params: { query: { q, limit: 10 } } }));
    return r.items.map((d) => ({ id: d.id, text: `${d.name ?? '—'} · ${d.phone}` }));
  }
  const r = await unwrap(client.GET('/admin/customers', { params: { query: { q, limit: 10 } } }));
  return r.items.map((c) => ({ id: c.id, text: `${c.name ?? '—'} · ${c.phone ?? ''}` }));
};

const labelOf = (o: Option) => `${o.text} (#${o.id})`;

/**
 * A search-as-you-type picker for a city, driver or client: the operator types a name (or phone), picks
 * from the list, and the form sends the id under `name` (a typed number is taken as the id itself).
 */
export const Picker = ({
  kind,
  name,
  label,
  defaultValue,
  error,
}: {
  kind: PickerKind;
  name: string;
  label: string;
  defaultValue?: string;
  /** The API's refusal of this field, in Spanish, shown on it. */
  error?: string;
}) => {
  const id = useId();
  const errId = `${id}-err`;
  const [typed, setTyped] = useState(defaultValue ? `#${defaultValue}` : '');
  const [picked, setPicked] = useState<string>(defaultValue ?? '');
  const q = useDebounced(picked ? '' : typed.trim(), 250);
  const options = useQuery({
    queryKey: ['picker', kind, kind === 'city' ? '' : q],
    queryFn: () => search(kind, kind === 'city' ? '' : q),
    enabled: kind === 'city' || q.length >= 2,
    staleTime: 60_000,
  });
  const list = options.data ?? [];
  const onChange = (value: string) => {
    setTyped(value);
    const option = list.find((o) => labelOf(o) === value);
    setPicked(option ? String(option.id) : /^#?\d+$/.test(value.trim()) ? value.trim().replace('#', '') : '');
  };
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        list={`${id}-list`}
        value={typed}
        autoComplete="off"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errId : undefined}
        placeholder={kind === 'city' ? t.common.pickerHintCity : t.common.pickerHint}
        onChange={(e) => onChange(e.currentTarget.value)}
      />
      <datalist id={`${id}-list`}>
        {list.map((o) => (
          <option key={o.id} value={labelOf(o)} />
        ))}
      </datalist>
      <input type="hidden" name={name} value={picked} />
      {error && (
        <span id={errId} className="field-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
};

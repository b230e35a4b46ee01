import { t } from '../../i18n';

/** The customer's reported form values as "label: value" lines (the form's own labels), or the bare reference. */
export const ReportedValues = ({ item }: { item: { reported_values?: unknown; reference: string | null } }) => {
  const values = Array.isArray(item.reported_values)
    ? (item.reported_values as { index: number; label: string; value: string }[])
    : [];
  if (values.length === 0 && !item.reference) return <>—</>;
  return (
    <ul className="plain">
      {values.map((v) => (
        <li key={v.index}>
          {v.label}: <strong>{v.value}</strong>
        </li>
      ))}
      {values.length === 0 && item.reference && (
        <li>
          {t.payments.reference}: <strong>{item.reference}</strong>
        </li>
      )}
    </ul>
  );
};

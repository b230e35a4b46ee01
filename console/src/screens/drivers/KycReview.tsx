import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { client, unwrap, type Ok } from '../../api/client';
import { fmt, t } from '../../i18n';
import { ConfirmPanel } from '../../ui/ConfirmPanel';
import { ErrorView } from '../../ui/states';

const d = t.drivers;
type Detail = Ok<'/admin/drivers/{driverId}', 'get'>;
type Document = Detail['documents'][number];

/**
 * The documents on file, each uploaded file opened in a tab of its own from here (the link carries no
 * referrer and gives the file no hold on the console). Approving KYC is confirmed, and the confirmation
 * cannot be given until every uploaded file has been opened from this screen.
 */
export const KycReview = ({
  driver,
  documents,
  onApproved,
}: {
  driver: Detail['driver'];
  documents: Document[];
  onApproved: () => void;
}) => {
  const [opened, setOpened] = useState<ReadonlySet<string>>(new Set());
  const [asking, setAsking] = useState(false);
  const approve = useMutation({
    mutationFn: () =>
      unwrap(client.POST('/admin/drivers/{driverId}/approve', { params: { path: { driverId: driver.id } } })),
    onSuccess: () => {
      setAsking(false);
      onApproved();
    },
  });
  const withFile = documents.filter((doc) => doc.fileUrl);
  const unopened = withFile.filter((doc) => !opened.has(doc.type)).map((doc) => doc.label);
  const reviewing = driver.status === 'PENDING_VERIFICATION' && driver.kycState === 'PENDING_REVIEW';
  return (
    <>
      <h2>{d.documents}</h2>
      <ul className="plain stack">
        {documents.map((doc) => (
          <li key={doc.type}>
            {doc.label} · {doc.expiresAt ? `${d.expires} ${fmt.date(doc.expiresAt)}` : d.noExpiry} ·{' '}
            {doc.fileUrl ? (
              <a
                href={doc.fileUrl}
                target="_blank"
                rel="noopener noreferrer"
                aria-label={d.openDocument(doc.label)}
                onClick={() => setOpened((s) => new Set(s).add(doc.type))}
              >
                {opened.has(doc.type) ? d.documentOpened : d.open}
              </a>
            ) : (
              <span className="muted">{d.noFile}</span>
            )}
          </li>
        ))}
        {documents.length === 0 && <li className="muted">{t.common.empty}</li>}
      </ul>
      {reviewing && !asking && (
        <div className="buttons">
          <button type="button" className="primary" onClick={() => setAsking(true)}>
            {d.approve}
          </button>
        </div>
      )}
      {reviewing && asking && (
        <ConfirmPanel
          title={d.approveConfirmTitle}
          message={d.approveConfirm(driver.name ?? `#${driver.id}`, withFile.length)}
          warning={
            withFile.length === 0 ? d.noFiles : unopened.length > 0 ? d.openFirst(unopened.join(', ')) : undefined
          }
          busy={approve.isPending || unopened.length > 0}
          onConfirm={() => approve.mutate()}
          onCancel={() => setAsking(false)}
        >
          {approve.isError && <ErrorView error={approve.error} />}
        </ConfirmPanel>
      )}
    </>
  );
};

import { useRef, useState } from 'react';

/**
 * A form that moves money: checked values wait in `review` for a confirmation; `confirm` sends them once
 * (a second click while the first is on its way does nothing) under one Idempotency-Key per booking, so
 * a retried request books once too. `send` throws to refuse; `refused` says whether the form placed the
 * refusal on its fields, else it shows as `error`.
 */
export const useReviewedSend = <V>(
  send: (values: V, idempotencyKey: string) => Promise<void>,
  refused: (err: unknown) => boolean,
) => {
  const [key, setKey] = useState(() => crypto.randomUUID());
  const [review, setReview] = useState<V | null>(null);
  const [busy, setBusy] = useState(false);
  const sending = useRef(false);
  const [error, setError] = useState<unknown>(null);
  const confirm = async () => {
    if (!review || sending.current) return;
    sending.current = true;
    setBusy(true);
    setError(null);
    try {
      await send(review, key);
      setKey(crypto.randomUUID());
    } catch (err) {
      if (!refused(err)) setError(err);
    } finally {
      sending.current = false;
      setBusy(false);
      setReview(null);
    }
  };
  return { review, ask: setReview, cancel: () => setReview(null), confirm, busy, error };
};

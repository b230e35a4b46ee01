import { useEffect, useState } from 'react';

/** The value once it has stayed unchanged for `ms` (search as you type without a request per key). */
export const useDebounced = <T>(value: T, ms: number): T => {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return settled;
};

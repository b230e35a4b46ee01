import { useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';

/**
 * A list's filters and page kept in the address: a reload, a shared link or the back button shows the same
 * page. `set` merges what changed (an empty value drops the parameter); `search` keys a filter form to it.
 */
export const useUrlQuery = () => {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const params = useMemo(() => Object.fromEntries(new URLSearchParams(search)), [search]);
  const set = (next: Record<string, string | undefined>) => {
    const merged = Object.entries({ ...params, ...next }).filter(([, v]) => v) as [string, string][];
    navigate(`${location}?${new URLSearchParams(merged)}`);
  };
  return [params, set, search] as const;
};

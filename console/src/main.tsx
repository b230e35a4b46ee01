import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api/client';
import { App } from './App';
import './styles.css';

/**
 * Server state lives in TanStack Query. A 503 or 429 is retried after its Retry-After (at most three
 * times); any other error is shown at once (a 401 has already sent the user to sign-in).
 */
const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: false,
      retry: (count, err) => err instanceof ApiError && (err.status === 503 || err.status === 429) && count < 3,
      retryDelay: (_count, err) =>
        err instanceof ApiError && err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : 2000,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);

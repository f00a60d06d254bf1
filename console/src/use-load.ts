// Data loading for a page: one call to the API, its answer or error, optional polling.

import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  reload: () => Promise<void>;
}

/** Loads once (and again when `deps` change); with `pollMs`, again every so often while the page is open. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = [], pollMs = 0): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const loadRef = useRef(load);
  loadRef.current = load;
  const reload = useCallback(async () => {
    try {
      setData(await loadRef.current());
      setError(undefined);
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, String(e)));
    }
  }, []);
  useEffect(() => {
    void reload();
    if (!pollMs) return;
    const timer = setInterval(() => {
      if (document.visibilityState !== 'hidden') void reload();
    }, pollMs);
    return () => clearInterval(timer);
  }, deps);
  return { data, error, reload };
}

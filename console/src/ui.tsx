// Small building blocks shared by every page: routing on the URL's hash, data loading with
// optional polling, forms whose API errors land next to the field they name, confirmations.

import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type FieldErrors } from './api.ts';

// ---------- routing ----------

export function currentPath(): string {
  return location.hash.replace(/^#/, '') || '/';
}

export function navigate(path: string): void {
  if (currentPath() !== path) location.hash = path;
}

export function useRoute(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const onChange = () => setPath(currentPath());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return path;
}

export function Link(props: { to: string; children: ComponentChildren; class?: string; current?: boolean }) {
  return (
    <a href={`#${props.to}`} class={props.class} aria-current={props.current ? 'page' : undefined}>
      {props.children}
    </a>
  );
}

// ---------- data ----------

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

// ---------- forms ----------

export interface FormState {
  busy: boolean;
  errors: FieldErrors;
  message: string | null;
  done: string | null;
  /** Runs an API call for a submit: catches its error into `errors`/`message`. Resolves true on success. */
  run: (action: () => Promise<unknown>, doneText?: string) => Promise<boolean>;
  clear: () => void;
}

export function useForm(): FormState {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = useCallback(async (action: () => Promise<unknown>, doneText?: string) => {
    setBusy(true);
    setErrors({});
    setMessage(null);
    setDone(null);
    try {
      await action();
      if (doneText) setDone(doneText);
      return true;
    } catch (e) {
      if (e instanceof ApiError) {
        // Each named field's reason goes under its input; the whole answer also shows at the top,
        // so a field without an input on this form is never lost.
        setErrors(e.fields);
        setMessage(e.message);
      } else setMessage(String(e));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  const clear = useCallback(() => {
    setErrors({});
    setMessage(null);
    setDone(null);
  }, []);
  return { busy, errors, message, done, run, clear };
}

let fieldCounter = 0;
function useFieldId(): string {
  const ref = useRef<string | null>(null);
  if (ref.current === null) ref.current = `f${++fieldCounter}`;
  return ref.current;
}

interface FieldProps {
  label: string;
  /** The API's name for the field: its error, when the API names it, is shown under the input. */
  name: string;
  value: string;
  onValue: (value: string) => void;
  errors?: FieldErrors;
  type?: string;
  autocomplete?: string;
  required?: boolean;
  hint?: string;
  multiline?: boolean;
  placeholder?: string;
}

export function Field(props: FieldProps) {
  const id = useFieldId();
  const error = props.errors?.[props.name];
  const describedBy = [error ? `${id}-error` : '', props.hint ? `${id}-hint` : ''].filter(Boolean).join(' ');
  const common = {
    id,
    name: props.name,
    value: props.value,
    required: props.required,
    placeholder: props.placeholder,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy || undefined,
    onInput: (event: Event) => props.onValue((event.currentTarget as HTMLInputElement).value),
  };
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.multiline ? (
        <textarea {...common} rows={4} spellcheck={false} />
      ) : (
        <input {...common} type={(props.type ?? 'text') as 'text'} autocomplete={props.autocomplete} />
      )}
      {props.hint && (
        <small id={`${id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
      {error && (
        <small id={`${id}-error`} class="field-error">
          {error}
        </small>
      )}
    </div>
  );
}

interface SelectProps {
  label: string;
  name: string;
  value: string;
  onValue: (value: string) => void;
  options: { value: string; label: string }[];
  errors?: FieldErrors;
  placeholder?: string;
}

export function Select(props: SelectProps) {
  const id = useFieldId();
  const error = props.errors?.[props.name];
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        value={props.value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => props.onValue(event.currentTarget.value)}
      >
        {props.placeholder !== undefined && <option value="">{props.placeholder}</option>}
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {error && (
        <small id={`${id}-error`} class="field-error">
          {error}
        </small>
      )}
    </div>
  );
}

export function Checkbox(props: {
  label: string;
  name: string;
  checked: boolean;
  onChecked: (checked: boolean) => void;
  errors?: FieldErrors;
  disabled?: boolean;
}) {
  const id = useFieldId();
  const error = props.errors?.[props.name];
  return (
    <div class="field checkbox">
      <input
        id={id}
        type="checkbox"
        name={props.name}
        checked={props.checked}
        disabled={props.disabled}
        onChange={(event) => props.onChecked(event.currentTarget.checked)}
      />
      <label for={id}>{props.label}</label>
      {error && <small class="field-error">{error}</small>}
    </div>
  );
}

/** The form's messages: the API's error (role=alert so screen readers hear it) or a success line. */
export function FormStatus(props: { form: FormState }) {
  return (
    <>
      {props.form.message && (
        <p class="error" role="alert">
          {props.form.message}
        </p>
      )}
      {props.form.done && (
        <p class="done" role="status">
          {props.form.done}
        </p>
      )}
    </>
  );
}

export function Form(props: { onSubmit: () => void; children: ComponentChildren; label?: string; class?: string }) {
  return (
    <form
      class={props.class ?? 'form'}
      aria-label={props.label}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit();
      }}
    >
      {props.children}
    </form>
  );
}

export function ErrorLine(props: { error?: ApiError | null }) {
  if (!props.error) return null;
  return (
    <p class="error" role="alert">
      {props.error.message}
    </p>
  );
}

/** A button that asks first: a modal dialog naming what will happen, with the action and Cancel. */
export function ConfirmButton(props: {
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => unknown;
  danger?: boolean;
  disabled?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button
        type="button"
        class={props.danger ? 'danger' : undefined}
        disabled={props.disabled}
        onClick={() => dialog.current?.showModal()}
      >
        {props.label}
      </button>
      <dialog ref={dialog} aria-label={props.label}>
        <p>{props.question}</p>
        <div class="row">
          <button
            type="button"
            class={props.danger ? 'danger' : 'primary'}
            onClick={async () => {
              dialog.current?.close();
              await props.onConfirm();
            }}
          >
            {props.confirmLabel}
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}

/**
 * A danger button that asks first; once confirmed, removes in `form` (its errors and message
 * shown there), then refreshes what lists the thing removed, and says `done`.
 */
export function RemoveButton(props: {
  label: string;
  question: string;
  form: FormState;
  remove: () => Promise<unknown>;
  refresh: () => Promise<unknown> | undefined;
  done: string;
}) {
  return (
    <ConfirmButton
      label={props.label}
      question={props.question}
      confirmLabel="Yes, remove"
      danger
      onConfirm={() =>
        props.form.run(async () => {
          await props.remove();
          await props.refresh();
        }, props.done)
      }
    />
  );
}

// ---------- tables ----------

/**
 * A table with one row per item: the column headers, each item's cells, and what to say once the
 * list is loaded and empty (nothing while it loads, when `rows` is undefined).
 */
export function ListTable<T>(props: {
  headers: string[];
  rows: readonly T[] | undefined;
  rowKey: (row: T, index: number) => string | number;
  empty?: string;
  children: (row: T, index: number) => ComponentChildren;
}) {
  return (
    <>
      <table>
        <thead>
          <tr>
            {props.headers.map((header) => (
              <th scope="col" key={header}>
                {header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {(props.rows ?? []).map((row, index) => (
            <tr key={props.rowKey(row, index)}>{props.children(row, index)}</tr>
          ))}
        </tbody>
      </table>
      {props.empty && props.rows?.length === 0 && <p class="empty">{props.empty}</p>}
    </>
  );
}

// ---------- formatting ----------

export function money(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined) return '–';
  const sign = value < 0 ? '−' : '';
  return `${sign}$${Math.abs(value).toFixed(digits)}`;
}

export function when(value: string | null | undefined): string {
  if (!value) return '–';
  return value.replace('T', ' ').replace('Z', ' UTC');
}

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return 'no usage: funds last indefinitely';
  if (seconds <= 0) return 'out of funds';
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  if (days > 0) return `${days} day${days === 1 ? '' : 's'} ${hours} h`;
  const minutes = Math.floor((seconds % 3600) / 60);
  return `${hours} h ${minutes} min`;
}

export function PowerBadge(props: { power: string }) {
  return <span class={`badge power-${props.power.replace(/[^a-z]/g, '')}`}>{props.power}</span>;
}

export function CopyButton(props: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      aria-label={props.label}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(props.text);
        } catch {
          // Without clipboard access (plain http on another host), select-and-copy still works.
        }
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

export function Page(props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Nubis`;
  }, [props.title]);
  // A new page takes the focus to its heading, so keyboard and screen-reader users start at
  // the top of what changed rather than on the link that led there.
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
  }, []);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-header">
        <h1 id="page-title" tabIndex={-1} ref={heading}>
          {props.title}
        </h1>
        {props.actions && <div class="row">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  );
}

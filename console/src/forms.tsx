// Forms whose API errors land next to the field they name: the form state, labelled fields with
// hints and errors wired for assistive technology, and the form's one status line.

import type { ComponentChildren } from 'preact';
import { useCallback, useRef, useState } from 'preact/hooks';
import { ApiError, type FieldErrors } from './api.ts';

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

// Buttons that do more than click: confirm first (a native modal dialog), remove and refresh, copy.

import { useRef, useState } from 'preact/hooks';
import type { FormState } from './forms.tsx';

/** A button that asks first: a modal dialog naming what will happen, with the action and Cancel. */
export function ConfirmButton(props: {
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => unknown;
  danger?: boolean;
  disabled?: boolean;
  /** The id of what says why the button is disabled, if it can be. */
  describedBy?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button
        type="button"
        class={props.danger ? 'danger' : undefined}
        disabled={props.disabled}
        aria-describedby={props.describedBy}
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

import { useCallback, useEffect, useRef, useState } from 'react';
import { api, type TokenSlot } from '../api';
import type { ActionPreview as Preview } from '../../../src/api/contract';

/** An action to preview: its name and parameters, and what to call it. */
export interface PendingAction {
  action: string;
  params: Record<string, unknown>;
  label: string;
}

/**
 * The confirmation step every action goes through: the dry run (`…/preview`) shows what would change and how
 * many, then the action runs only when "Confirm" is pressed, with the preview's confirmation. A native modal dialog:
 * focus moves into it, Escape cancels, focus returns to the page after.
 */
export function ActionDialog({
  slot,
  base,
  pending,
  onClose,
  onDone,
}: {
  slot: TokenSlot;
  base: string;
  pending: PendingAction | null;
  onClose: () => void;
  onDone: (summary: string, result: unknown) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);

  useEffect(() => {
    setPreview(null);
    setError(null);
    if (!pending) {
      dialog.current?.close();
      return;
    }
    dialog.current?.showModal();
    api<Preview>(slot, `${base}/${pending.action}/preview`, { method: 'POST', body: { params: pending.params } }).then(
      setPreview,
      (failure: Error) => setError(failure.message),
    );
  }, [pending, slot, base]);

  const confirm = async () => {
    if (!pending || !preview?.confirmation) return;
    setRunning(true);
    try {
      const outcome = await api<{ summary: string; result: unknown }>(slot, `${base}/${pending.action}`, {
        method: 'POST',
        body: { params: pending.params, confirmation: preview.confirmation },
      });
      onDone(outcome.summary, outcome.result);
      onClose();
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setRunning(false);
    }
  };

  return (
    <dialog ref={dialog} className="action-dialog" aria-labelledby="action-title" onClose={onClose} onCancel={onClose}>
      <h2 id="action-title">{pending?.label ?? ''}</h2>
      {!preview && !error && <p role="status">Counting what this would change…</p>}
      {preview && (
        <div role="status">
          <p className="preview-summary">{preview.summary}</p>
          <p>
            <strong data-testid="preview-count">{preview.count}</strong> {preview.count === 1 ? 'item' : 'items'} would
            change.
          </p>
          {preview.items.length > 0 && <pre className="json small">{JSON.stringify(preview.items, null, 2)}</pre>}
        </div>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <div className="dialog-buttons">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className="primary"
          disabled={!preview?.confirmation || running}
          onClick={() => void confirm()}
          autoFocus={false}
        >
          {running ? 'Running…' : preview && preview.count === 0 ? 'Nothing to do' : `Confirm: ${pending?.label ?? ''}`}
        </button>
      </div>
    </dialog>
  );
}

/** What an app that runs actions through {@link ActionDialog} keeps: the action waiting for confirmation and the last outcome. */
export function usePendingAction(): {
  /** Opens the dialog for `action`; `then` runs with its result once it was confirmed and done. */
  act: (action: PendingAction, then?: (result: unknown) => void) => void;
  /** The summary of the last action done, announced by {@link ActionNotice}. */
  notice: string | null;
  /** Forgets the notice: on leaving the page it was given on, so it does not follow to the next pages. */
  clearNotice: () => void;
  /** The props that tie an {@link ActionDialog} to this state. */
  dialog: Pick<Parameters<typeof ActionDialog>[0], 'pending' | 'onClose' | 'onDone'>;
} {
  const [pending, setPending] = useState<{ action: PendingAction; then?: (result: unknown) => void } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const clearNotice = useCallback(() => setNotice(null), []);
  return {
    act: (action, then) => setPending({ action, then }),
    notice,
    clearNotice,
    dialog: {
      pending: pending?.action ?? null,
      onClose: () => setPending(null),
      onDone: (summary, result) => {
        setNotice(summary);
        pending?.then?.(result);
      },
    },
  };
}

/** The outcome of the last action, read out politely by screen readers and hidden while there is none. */
export function ActionNotice({ notice }: { notice: string | null }) {
  return (
    <p role="status" aria-live="polite" className={notice ? 'notice' : 'visually-hidden'}>
      {notice}
    </p>
  );
}

import type { ReactNode } from 'react';

/** One field of a filter form, bound to `field` of the draft the form submits. */
interface DraftFieldProps<D extends Record<string, string>> {
  id: string;
  label: string;
  draft: D;
  setDraft: (draft: D) => void;
  field: keyof D & string;
}

/** A labelled text (or `type`, e.g. datetime-local) input of a filter form. */
export function FilterInput<D extends Record<string, string>>({
  id,
  label,
  draft,
  setDraft,
  field,
  type,
  placeholder,
}: DraftFieldProps<D> & { type?: string; placeholder?: string }) {
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        value={draft[field]}
        onChange={(event) => setDraft({ ...draft, [field]: event.target.value })}
        placeholder={placeholder}
      />
    </div>
  );
}

/** A labelled select of a filter form; `children` are its options. */
export function FilterSelect<D extends Record<string, string>>({
  id,
  label,
  draft,
  setDraft,
  field,
  children,
}: DraftFieldProps<D> & { children: ReactNode }) {
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={draft[field]} onChange={(event) => setDraft({ ...draft, [field]: event.target.value })}>
        {children}
      </select>
    </div>
  );
}

/** The submit button closing a filter form. */
export function FilterSubmit({ children }: { children: ReactNode }) {
  return (
    <div className="filter-buttons">
      <button type="submit" className="primary">
        {children}
      </button>
    </div>
  );
}

/** A failure announced to screen readers as it appears (role alert), or nothing while there is none. */
export function ErrorAlert({ error }: { error: Error | string | null | undefined }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {typeof error === 'string' ? error : error.message}
    </p>
  );
}

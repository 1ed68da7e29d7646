import type { PendingAction } from './ActionDialog';

/**
 * The button that disables an enabled endpoint or enables a disabled one, through `action` (the console's or the
 * portal's), previewed in the action dialog first; `then` runs once it is done.
 */
export function SetEnabledButton({
  action,
  endpoint,
  act,
  then,
}: {
  action: string;
  endpoint: { id: string; url: string; enabled: boolean };
  act: (action: PendingAction, then?: (result: unknown) => void) => void;
  then: () => void;
}) {
  return (
    <button
      type="button"
      onClick={() =>
        act(
          {
            action,
            params: { endpointId: endpoint.id, enabled: !endpoint.enabled },
            label: `${endpoint.enabled ? 'Disable' : 'Enable'} ${endpoint.url}`,
          },
          then,
        )
      }
    >
      {endpoint.enabled ? 'Disable…' : 'Enable…'}
    </button>
  );
}

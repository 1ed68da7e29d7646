import type { ReactNode } from 'react';

/**
 * A table's header row: a hidden "Select" column first when rows can be selected, the named columns, and a hidden
 * "Actions" column last when rows carry buttons (screen readers still name every column).
 */
export function TableHead({
  columns,
  select = false,
  actions = false,
}: {
  columns: string[];
  select?: boolean;
  actions?: boolean;
}) {
  return (
    <thead>
      <tr>
        {select && (
          <th scope="col">
            <span className="visually-hidden">Select</span>
          </th>
        )}
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/** The one row of a table with nothing to list, spanning its `columns`, shown only `when` it is empty. */
export function EmptyRow({ when, columns, children }: { when: boolean; columns: number; children: ReactNode }) {
  if (!when) return null;
  return (
    <tr>
      <td colSpan={columns}>{children}</td>
    </tr>
  );
}

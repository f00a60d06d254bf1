// A list as a table: headers, one row per item, and what to say when the list is empty.

import type { ComponentChildren } from 'preact';

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

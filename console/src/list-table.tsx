// A list as a table: headers, one row per item, and what to say when the list is empty.

import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

/**
 * True while the element is wider inside than out (it scrolls sideways): then the keyboard must reach it.
 * Measured in the commit that changes what it holds (`content`), before anything else runs, so the box is
 * never wide and unreachable between rows arriving and a later resize notice; the observer follows
 * the window and fonts.
 */
function useScrollsSideways(content: unknown) {
  const box = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  const measure = () => {
    const element = box.current;
    if (element) setScrolls(element.scrollWidth > element.clientWidth + 1);
  };
  useLayoutEffect(measure, [content]);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return { box, scrolls };
}

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
  const { box, scrolls } = useScrollsSideways(props.rows);
  return (
    <>
      {/* Wider than a phone: the table scrolls sideways in its box, never the page. */}
      <div class="table-wide" ref={box} tabIndex={scrolls ? 0 : undefined}>
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
      </div>
      {props.empty && props.rows?.length === 0 && <p class="empty">{props.empty}</p>}
    </>
  );
}

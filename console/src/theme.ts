// The console's two themes: CSS variables under [data-theme] (styles.css). A signed-in
// customer's theme follows the account's dark_mode; before that, the system's preference.

export function applyTheme(dark: boolean): void {
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

export function systemPrefersDark(): boolean {
  return matchMedia('(prefers-color-scheme: dark)').matches;
}

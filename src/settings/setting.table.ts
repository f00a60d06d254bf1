// Row type of the key/value settings the server keeps across restarts (the virtual clock's offset).

export interface SettingTable {
  key: string;
  value: string;
}

/**
 * What of OSWorld's task format the desktop image runs offline: the getters, metrics and postconfig steps
 * its evaluator module implements (images/desktop/python/osworld_eval), the setup steps the importer turns
 * into the task's image and launch list, and the apps the image has. Keep in step with that module.
 */
export const SUPPORTED_GETTERS = new Set([
  'vm_file',
  'cloud_file',
  'cache_file',
  'rule',
  'vm_command_line',
  'vm_terminal_output',
  'content_from_vm_file',
  'list_directory',
  'accessibility_tree',
]);

export const SUPPORTED_METRICS = new Set([
  'infeasible',
  'exact_match',
  'fuzzy_match',
  'literal_match',
  'check_include_exclude',
  'check_direct_json_object',
  'file_contains',
  'check_line_number',
  'compare_text_file',
  'compare_csv',
  'compare_table',
  'compare_docx_files',
  'compare_subscript_contains',
  'compare_pptx_files',
  'check_moved_jpgs',
]);

export const SUPPORTED_POSTCONFIG = new Set(['sleep', 'activate_window', 'execute', 'command', 'close_window']);

/** Setup steps the importer turns into the task: downloads (from a cache), shell commands, apps to open. */
export const SUPPORTED_SETUP = new Set(['download', 'open', 'launch', 'execute', 'command', 'sleep', 'activate_window']);

/** OSWorld's apps → the desktop image's (absent ones make the task unsupported). */
export const APP_COMMANDS: Record<string, string | null> = {
  libreoffice: 'libreoffice --norestore',
  soffice: 'libreoffice --norestore',
  'gnome-terminal': 'lxterminal',
  nautilus: 'pcmanfm',
  gedit: 'mousepad',
  'google-chrome': null,
  chromium: null,
  code: null,
  gimp: null,
  vlc: null,
  thunderbird: null,
};

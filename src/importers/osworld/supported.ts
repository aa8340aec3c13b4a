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
  'gimp_config_file',
  'enable_do_not_track',
  'profile_name',
  'chrome_font_size',
  'default_search_engine',
  'bookmarks',
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
  'check_moved_jpgs',
  'match_in_list',
  'is_in_list',
  'check_list',
  'check_config_status',
  'check_image_size',
  'find_default_font',
  'compare_font_names',
  'check_font_size',
  'is_expected_bookmarks',
]);

/**
 * Metrics the module has but would score more leniently than OSWorld: an imported task would pass an episode
 * OSWorld fails (nothing done, where the task only changes formatting), so it is left out, saying why.
 */
export const LENIENT_METRICS: Record<string, string> = {
  compare_pptx_files:
    "the module compares slide text only; OSWorld's also compares each shape's position and size and its text's fonts, colours and alignment unless the task turns that off",
};

export const SUPPORTED_POSTCONFIG = new Set(['sleep', 'activate_window', 'execute', 'command', 'close_window', 'launch', 'download']);

/**
 * (metric, result getter) pairs whose end state the evaluator itself spells out (an app's settings file against
 * a literal rule): the module's osworld_eval.reference writes it, and the importer makes that the task's
 * reference solution, after stopping the app that owns the file (`stops`, a process name).
 */
export const REFERENCE_STATES: Record<string, { stops: string }> = {
  'exact_match/enable_do_not_track': { stops: 'chromium' },
  'exact_match/profile_name': { stops: 'chromium' },
  'match_in_list/default_search_engine': { stops: 'chromium' },
  'check_font_size/chrome_font_size': { stops: 'chromium' },
  'check_config_status/gimp_config_file': { stops: 'gimp' },
  'find_default_font/vm_file': { stops: 'soffice.bin' },
  'compare_font_names/vm_file': { stops: 'soffice.bin' },
};

/** Setup steps the importer turns into the task: downloads (from a cache), shell commands, apps to open. */
export const SUPPORTED_SETUP = new Set(['download', 'open', 'launch', 'execute', 'command', 'sleep', 'activate_window']);

/** Chromium runs as root in the image (no sandbox), with a first run that shows no welcome page. */
const CHROMIUM = 'chromium --no-sandbox --no-first-run --password-store=basic';

/**
 * Launches OSWorld needs and the image does not: socat bridges Chrome's debugging port to its host, while
 * here the evaluator runs next to Chromium.
 */
export const NOT_NEEDED_LAUNCHES = new Set(['socat']);

/** The title of an app's first window, waited for before the episode starts (apps whose window takes a while). */
export const APP_WINDOWS: Record<string, string> = {
  'google-chrome': 'Chromium',
  chromium: 'Chromium',
  gimp: 'GNU Image Manipulation Program',
};

/** OSWorld's apps → the desktop image's (absent ones make the task unsupported). */
export const APP_COMMANDS: Record<string, string | null> = {
  libreoffice: 'libreoffice --norestore',
  soffice: 'libreoffice --norestore',
  'gnome-terminal': 'lxterminal',
  nautilus: 'pcmanfm',
  gedit: 'mousepad',
  'google-chrome': CHROMIUM,
  chromium: CHROMIUM,
  code: null,
  gimp: 'gimp',
  vlc: null,
  thunderbird: null,
};

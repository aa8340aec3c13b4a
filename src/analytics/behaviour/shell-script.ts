/**
 * A shell script read just far enough to tell what it does: its simple commands (split at unquoted `;`,
 * `&&`, `||`, `|`, `&` and line ends), each one's words, whether it sends output to a file, and the
 * code it hands an interpreter inline (a heredoc body, `python3 -c '…'`). Comments are dropped.
 * Expansions (`$(…)`, backticks) are kept as plain words: this is a reading, not a shell.
 */
export interface SimpleCommand {
  words: string[];
  /** Output goes to a file (`>`, `>>`, `&>`, `2>`), not to a descriptor or /dev/null. */
  writesFile: boolean;
  /** Heredoc bodies fed to it. */
  heredocs: string[];
}

const HEREDOC = /<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/g;
/** Stands in for a heredoc in the text the tokenizer reads; its body is kept apart, by number. */
const HEREDOC_MARK = '\u0001';

export function simpleCommands(script: string): SimpleCommand[] {
  const { text, bodies } = cutHeredocs(script);
  const commands: SimpleCommand[] = [];
  let current: SimpleCommand = { words: [], writesFile: false, heredocs: [] };
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  /** What the word being read is: an argument, the target of an output redirection, or of an input one. */
  let wordRole: 'arg' | 'out' | 'in' = 'arg';

  const endWord = () => {
    if (word === undefined) return;
    if (word.startsWith(HEREDOC_MARK)) current.heredocs.push(bodies[Number(word.slice(1))] ?? '');
    else if (wordRole === 'out') current.writesFile ||= !/^&\d*$|^\/dev\/(null|stdout|stderr)$/.test(word);
    else if (wordRole === 'arg') current.words.push(word);
    word = undefined;
    wordRole = 'arg';
  };
  const endCommand = () => {
    endWord();
    if (current.words.length > 0 || current.writesFile || current.heredocs.length > 0) commands.push(current);
    current = { words: [], writesFile: false, heredocs: [] };
  };

  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < text.length) word += text[++i]!;
      else word += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= '';
    } else if (ch === '\\' && i + 1 < text.length) {
      if (text[i + 1] === '\n') i++;
      else word = (word ?? '') + text[++i]!;
    } else if (ch === '#' && word === undefined) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (ch === ' ' || ch === '\t') {
      endWord();
    } else if (ch === '\n' || ch === ';' || ch === '|' || ch === '&') {
      if (ch === '&' && text[i + 1] === '>') {
        // &> and &>>: both streams to a file
        endWord();
        wordRole = 'out';
        i += text[i + 2] === '>' ? 2 : 1;
      } else endCommand();
    } else if (ch === '>') {
      // a descriptor number right before it (2>) is part of the redirection, not a word
      if (word !== undefined && /^\d+$/.test(word)) word = undefined;
      endWord();
      if (text[i + 1] === '>') i++;
      wordRole = 'out';
      if (text[i + 1] === '&') {
        // >&2: to a descriptor
        word = '&';
        i++;
      }
    } else if (ch === '<') {
      endWord();
      wordRole = 'in';
    } else {
      word = (word ?? '') + ch;
    }
  }
  endCommand();
  return commands;
}

/** The script with each heredoc's `<<WORD` and body replaced by a mark naming the body. */
function cutHeredocs(script: string): { text: string; bodies: string[] } {
  const bodies: string[] = [];
  const lines = script.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const pending: string[] = [];
    const line = lines[i]!.replace(HEREDOC, (_m, _q, delimiter: string) => {
      pending.push(delimiter);
      return ` ${HEREDOC_MARK}${bodies.length + pending.length - 1} `;
    });
    out.push(line);
    for (const delimiter of pending) {
      const body: string[] = [];
      while (i + 1 < lines.length && lines[i + 1]!.trim() !== delimiter) body.push(lines[++i]!);
      i++; // the delimiter line
      bodies.push(body.join('\n'));
    }
  }
  return { text: out.join('\n'), bodies };
}

/** The script without its comments, blank lines and shell settings (`set -euo pipefail`), whitespace collapsed: what it runs. */
export function scriptCore(script: string): string {
  return script
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !/^set\s+[-+][a-zA-Z]+(\s+[a-z]+)*$/.test(line))
    .join('\n')
    .replace(/[ \t]+/g, ' ');
}

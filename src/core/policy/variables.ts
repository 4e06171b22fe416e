// Which variable assignments change what runs (exec-policy.md flags: assignments to PATH, LD_*, DYLD_*,
// NODE_OPTIONS, PYTHONPATH and the like). The rule covers every spelling of an assignment — `NAME=v cmd`,
// `NAME=v`, `export`/`local`/`declare`, `for NAME in`, `read NAME`, `env NAME=v`, a request's own
// environment — so none slips past it.
//
// Judged by families, not by a list of names: a name is a flag when it belongs to the shell (bash's and
// zsh's own variables, any BASH_*), to the loader (LD_*, DYLD_*, GCONV_PATH…), to a language runtime or
// tool that reads configuration from the environment (PYTHON*, NODE_*, GIT_*, npm_config_*, TAR_OPTIONS…),
// or when its name says it names a program, a path, options or configuration (…PATH, …HOME, …OPTIONS,
// …FLAGS, …COMMAND, …EDITOR, …PAGER, …CONFIG, …FILE, CC, CXX…). What is left is an ordinary variable
// (`FOO=1 git push` runs, as the design's examples want). A few names inside those families are known to
// be inert (NODE_ENV, PYTHONUNBUFFERED, GIT_AUTHOR_NAME…) and stay allowed.

import { requestVariableChangesWhatRuns } from "../env-rules.js";

/** Names inside the families below that only set a mode, an output format or an identity. */
// prettier-ignore
const INERT_NAMES = new Set([
  "NODE_ENV", "NODE_NO_WARNINGS", "BABEL_ENV", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED",
  "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONFAULTHANDLER", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PIP_NO_INPUT",
  "PIP_DISABLE_PIP_VERSION_CHECK", "CARGO_TERM_COLOR", "CARGO_TERM_VERBOSE", "CARGO_INCREMENTAL",
  "CARGO_NET_OFFLINE", "RUST_LOG", "RUST_BACKTRACE", "RUST_LIB_BACKTRACE", "RUST_TEST_THREADS",
  "GIT_TERMINAL_PROMPT", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "GIT_MERGE_AUTOEDIT", "GIT_OPTIONAL_LOCKS",
  "DOCKER_BUILDKIT", "TF_IN_AUTOMATION", "TF_INPUT", "GOOS", "GOARCH", "GOARM", "GOAMD64", "CGO_ENABLED",
  "GO111MODULE", "NPM_CONFIG_LOGLEVEL", "NPM_CONFIG_FUND", "NPM_CONFIG_AUDIT", "NPM_CONFIG_YES",
  "NPM_CONFIG_UPDATE_NOTIFIER", "HUSKY",
]);

/** The shell's own variables: they change how it reads, expands and finds commands. */
// prettier-ignore
const SHELL_NAMES = new Set([
  "ENV", "IFS", "CDPATH", "GLOBIGNORE", "FIGNORE", "EXECIGNORE", "PS0", "PS1", "PS2", "PS3", "PS4",
  "PROMPT_COMMAND", "HOME", "HOSTFILE", "INPUTRC", "POSIXLY_CORRECT", "FUNCNEST", "SHELLOPTS", "TMOUT",
  "NULLCMD", "READNULLCMD", "FPATH", "ZDOTDIR", "PROMPT", "RPROMPT", "RPS1", "RPS2", "TMPPREFIX", "MAILCHECK",
  "MAIL", "MAILPATH", "OLDPWD", "PWD", "OPTIND", "OPTARG", "TERMINFO", "TERMINFO_DIRS", "TMPDIR", "SHELL",
  "GLIBC_TUNABLES", "GCONV_PATH", "LOCPATH", "NLSPATH", "HOSTALIASES", "RES_OPTIONS", "LOCALDOMAIN",
  "GETCONF_DIR", "TZDIR", "LANGUAGE_PATH", "CLASSPATH", "CC", "CXX", "CPP", "LD", "AR", "AS", "NM", "RANLIB",
  "STRIP", "OBJCOPY", "OBJDUMP", "FC", "F77", "F90", "YACC", "LEX", "M4", "INSTALL", "SED", "AWK", "GREP",
  "EGREP", "FGREP", "EDITOR", "VISUAL", "PAGER", "BROWSER", "TERMINAL", "LESS", "MORE", "MANPAGER",
  "GIT_PAGER", "ZIP", "UNZIP", "GZIP", "BZIP", "BZIP2", "ZIPOPT", "UNZIPOPT", "XZ_OPT", "XZ_DEFAULTS",
  "ZSTD_CLEVEL", "DISPLAY", "WAYLAND_DISPLAY", "SSH_AUTH_SOCK", "GPG_TTY", "KUBECONFIG", "HISTFILE",
  "HISTCONTROL", "HISTIGNORE", "HISTTIMEFORMAT", "HISTSIZE", "HISTFILESIZE", "PERLDB_OPTS", "GOENV",
  "GOTOOLCHAIN", "GOINSECURE", "GONOSUMDB", "GONOSUMCHECK", "GOPRIVATE", "GONOPROXY", "GOEXPERIMENT",
]);

/** Prefixes of families whose members configure a program, a runtime or the loader. */
// prettier-ignore
const FAMILY_PREFIXES = [
  "BASH", "ZSH", "LD_", "DYLD_", "MALLOC_", "GIT_", "NPM_CONFIG_", "YARN_", "PNPM_", "PIP_", "PIPX_", "UV_",
  "POETRY_", "CARGO_", "RUSTC", "RUSTDOC", "RUSTUP_", "PYTHON", "PYTEST_", "PERL", "RUBY", "GEM_",
  "BUNDLE_", "NODE_", "JAVA", "_JAVA", "JDK_", "MAVEN_", "GRADLE_", "SBT_", "DOTNET_", "COMPLUS_",
  "CORECLR_", "ELECTRON_", "DENO_", "BUN_", "LUA_", "R_", "JULIA_", "PHP", "TCL", "TK_", "GUILE_", "EMACS",
  "VIM", "EXINIT", "LESS", "GROFF", "TAR_", "SSH_", "GPG", "GNUPG", "KUBE", "DOCKER_", "PODMAN_",
  "CONTAINERS_", "AWS_", "AZURE_", "GOOGLE_", "CLOUDSDK_", "TF_", "HELM_", "ANSIBLE_", "OPENSSL_", "SSL_",
  "CURL_", "WGET", "HTTP", "HTTPS_", "ALL_PROXY", "NO_PROXY", "FTP_", "SUDO_", "XDG_", "DBUS_", "SYSTEMD_",
  "MAKE", "GNUMAKE", "CCACHE_", "DISTCC_", "CMAKE_", "MESON_", "NINJA_", "PKG_CONFIG", "ACLOCAL", "AUTOCONF",
  "AUTOMAKE", "LIBTOOL", "QEMU_", "WINE", "CHROME", "PUPPETEER_", "PLAYWRIGHT_", "CYPRESS_", "FIREFOX",
  "NVM_", "VOLTA_", "ASDF_", "MISE_", "PYENV_", "RBENV_", "CONDA_", "VIRTUAL_ENV", "JUPYTER_", "IPYTHON",
  "SCREEN", "TMUX", "KRB5", "NIX_", "HOMEBREW_", "MACOSX_", "SDKROOT", "COMP_", "READLINE_", "HIST",
];

/** Parts of a name that say it names a program, a path, options, configuration or code. */
// prettier-ignore
const TELLING_PARTS = [
  "PATH", "HOME", "DIR", "DIRS", "ROOT", "CONFIG", "CONF", "OPT", "OPTS", "OPTION", "OPTIONS", "FLAGS", "ARGS", "CMD", "COMMAND", "EXEC", "SHELL",
  "EDITOR", "PAGER", "BROWSER", "PROG", "WRAPPER", "RUNNER", "LINKER", "LAUNCHER", "HOOK", "PLUGIN",
  "PRELOAD", "LOADER", "LIB", "MODULE", "STARTUP", "INIT", "PROFILE", "ASKPASS", "PROXY", "TRACE", "FILE",
  "TOOL", "DEBUGGER", "SCRIPT", "INCLUDE", "EXTENSION", "BIN", "INTERPRETER", "COMPILER", "HELPER",
  "SOCKET", "SOCK", "TEMPLATE", "RC",
];

/** Lower-case names a shell or a tool gives a meaning (zsh's `path` is PATH, `functions[x]` defines x…). */
// prettier-ignore
const SPECIAL_LOWER_NAMES = new Set([
  "path", "cdpath", "fpath", "manpath", "mailpath", "module_path", "psvar", "watch", "fignore", "histchars",
  "prompt", "signals", "argv", "status", "pipestatus", "commands", "functions", "aliases", "galiases",
  "saliases", "builtins", "options", "parameters", "modules", "nameddirs", "userdirs", "jobtexts",
  "jobstates", "jobdirs", "reswords", "dirstack", "patchars", "widgets", "sysparams", "funcstack",
  "precmd_functions", "preexec_functions", "chpwd_functions", "periodic_functions", "zshaddhistory_functions",
  "zshexit_functions", "history", "historywords", "mapfile", "keymaps", "home", "cdpath", "fignore",
]);
const SPECIAL_LOWER_PREFIXES = [
  "npm_config_",
  "yarn_",
  "pnpm_",
  "http_",
  "https_",
  "ftp_",
  "all_",
  "no_proxy",
];

export type VariableVerdict = { ok: true } | { ok: false; why: string };

function wordsOf(name: string): string[] {
  return name.split("_").filter((w) => w !== "");
}

/** Whether assigning `name`, in any spelling of an assignment, cannot change what runs. */
export function judgeVariable(name: string): VariableVerdict {
  // exported functions (BASH_FUNC_…%%), POSIXLY_CORRECT, HOME, … (core/env-rules.ts)
  if (requestVariableChangesWhatRuns(name)) {
    return {
      ok: false,
      why: `${name} changes how the shell reads commands or where programs find their configuration`,
    };
  }
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    return { ok: false, why: `${name} is not a plain variable name (a shell or the loader may read it)` };
  }
  if (/[A-Z]/.test(name)) {
    const upper = name.toUpperCase();
    if (INERT_NAMES.has(upper)) return { ok: true };
    if (SHELL_NAMES.has(upper))
      return { ok: false, why: `${name} changes how the shell or a program finds and runs code` };
    const family = FAMILY_PREFIXES.find((prefix) => upper.startsWith(prefix));
    if (family)
      return {
        ok: false,
        why: `${name} configures a program or runtime (${family}…), which can change what runs`,
      };
    const words = wordsOf(upper);
    // a whole word (`NODE_OPTIONS`), or the end of a longer one (`KUBECONFIG`, `MANPAGER`, `WGETRC`)
    const telling = TELLING_PARTS.find((part) =>
      words.some((w) => w === part || (w.length > part.length + 1 && w.endsWith(part))),
    );
    if (telling)
      return { ok: false, why: `${name} looks like it names a program, a path or options (${telling})` };
    return { ok: true };
  }
  if (SPECIAL_LOWER_NAMES.has(name) || SPECIAL_LOWER_PREFIXES.some((p) => name.startsWith(p))) {
    return { ok: false, why: `${name} is read by a shell or a tool and can change what runs` };
  }
  return { ok: true };
}

/** True when assigning `name` can change what a command runs (the flag `dangerous-assignment`). */
export function dangerousVariable(name: string): boolean {
  return !judgeVariable(name).ok;
}

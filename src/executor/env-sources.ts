// Where the child-environment rules come from at run time: the user's `environment.inherit` (read
// per request, so an edit applies to the next command) and the secrets this process knows.
import { containsSecret, type Logger } from "../core/log.js";
import {
  emptySettings,
  environmentSettings,
  SettingsFileSchema,
  type SettingsFile,
} from "../core/settings.js";
import { readJsonFile } from "../core/store/index.js";

export interface InheritSettings {
  inherit: string[];
  /** Why the configured names are not used (an invalid file or section); nothing extra is inherited then. */
  warning?: string;
}

/** `environment.inherit` of a loaded settings file; an invalid section inherits nothing extra, with a warning. */
export function inheritSettingsOf(settings: SettingsFile, file: string): InheritSettings {
  const section = environmentSettings(settings);
  if (section.ok) return { inherit: section.value.inherit };
  return {
    inherit: [],
    warning: `${file}: ${section.error}; only the built-in variables reach commands until it is fixed`,
  };
}

/** Reads `environment.inherit` from the settings file (missing file: nothing extra). */
export async function loadInheritSettings(file: string | undefined): Promise<InheritSettings> {
  if (file === undefined) return { inherit: [] };
  const read = await readJsonFile(file, SettingsFileSchema);
  if (read.status === "missing") return inheritSettingsOf(emptySettings(), file);
  if (read.status === "invalid") {
    return {
      inherit: [],
      warning: `${file} is invalid (${read.error}); only the built-in variables reach commands until it is fixed`,
    };
  }
  return inheritSettingsOf(read.value, file);
}

/**
 * True when a value holds a secret: one the logger has registered (device token, secret-store values,
 * task tokens) or one of `extra` (e.g. the socket token from the approvals file just loaded).
 */
export function secretTest(
  logger: Pick<Logger, "containsSecret">,
  extra: ReadonlyArray<string | null | undefined> = [],
): (value: string) => boolean {
  const known = extra.filter((v): v is string => typeof v === "string" && v !== "");
  return (value) => logger.containsSecret(value) || containsSecret(value, known);
}

import { CliError, ExitCode } from "../CliError.js";

/** The names a new project derives from the name the user typed. */
export interface ProjectNames {
  /** As typed, e.g. "latest_ai_development". */
  title: string;
  /** Folder and npm package name: the name in lower case, spaces as "_" (CrewAI's folder for "Latest AI Development"). */
  folder: string;
  /** e.g. "LatestAiDevelopmentCrew" or "LatestAiDevelopmentFlow". */
  className: string;
}

/** Derives the folder, package and class names; throws a usage error for a name that cannot make them. */
export function projectNames(name: string, kind: "crew" | "flow"): ProjectNames {
  const title = name.trim();
  if (!/^[A-Za-z][A-Za-z0-9 _-]*$/.test(title)) {
    throw new CliError(
      `"${name}" cannot be a project name: start with a letter and use only letters, digits, spaces, - and _ (e.g. crewts create ${kind} latest_ai_development).`,
      ExitCode.usage,
    );
  }
  const words = title
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s_-]+/)
    .filter(Boolean);
  const suffix = kind === "crew" ? "Crew" : "Flow";
  const pascal = words.map((w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase()).join("");
  return {
    title,
    folder: title.toLowerCase().replace(/\s+/g, "_"),
    className: pascal.endsWith(suffix) ? pascal : pascal + suffix,
  };
}

/** Fills `{{name}}` markers; a marker without a value is a bug in the template. */
export function render(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (marker, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`Template marker ${marker} has no value.`);
    return value;
  });
}

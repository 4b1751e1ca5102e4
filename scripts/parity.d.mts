export const ORIGINAL_COMMANDS: string[];
export const ORIGINAL_VARIABLES: string[];
export function checklist(): string;
export function withChecklist(guide: string): string;

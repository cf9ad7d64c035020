// The part of madge's API the architecture test uses (madge ships no types).
declare module 'madge' {
  interface MadgeResult {
    obj(): Record<string, string[]>;
    circular(): string[][];
  }
  interface MadgeConfig {
    fileExtensions?: string[];
    tsConfig?: string;
    detectiveOptions?: Record<string, unknown>;
  }
  function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
  export default madge;
}

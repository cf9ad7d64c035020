export async function handler(): Promise<void> { /* TODO */ }

export { tempDir, uniqueName } from './names.js';

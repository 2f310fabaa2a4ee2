export { uniqueName, tempDir } from './names.js';

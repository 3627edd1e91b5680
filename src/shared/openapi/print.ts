/** `npm run openapi`: prints the generated OpenAPI document. */
import { openApiYaml } from './document';

process.stdout.write(openApiYaml(process.argv[2]));

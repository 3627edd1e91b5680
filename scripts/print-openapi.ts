/** `npm run openapi [base URL]`: prints the generated OpenAPI document (Node only, so not in src/shared). */
import { openApiYaml } from '../src/shared/openapi/document';

process.stdout.write(openApiYaml(process.argv[2]));

// `yo raf-op:init DIR [--name NAME]`: the same package `raf-op init` creates, from Yeoman.

import { resolve } from 'node:path';
import Generator, { type BaseOptions } from 'yeoman-generator';
import { generate } from './generate.ts';
import { initPackage } from './init.ts';

type Options = BaseOptions & { dir: string; name?: string };

export default class InitGenerator extends Generator<Record<string, unknown>, Options> {
  constructor(args: string[], options: Options) {
    super(args, options);
    this.argument('dir', { type: String, required: true, description: 'Folder of the new package' });
    this.option('name', { type: String, description: 'npm package name (default: the folder name)' });
  }

  async writing(): Promise<void> {
    // The package is written directly (not through Yeoman's file system) so that its registry can be generated now.
    const dir = resolve(this.destinationRoot(), this.options.dir);
    const written = initPackage(dir, this.options.name ? { name: this.options.name } : {});
    const result = await generate(dir);
    this.log(
      `raf-op init: created ${dir} (${written.length + result.changes.length} files); next: cd ${this.options.dir} && npm install`,
    );
  }
}

from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'hardware.html'

def root(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    parent_template = None
    l_0_pager = missing
    pass
    parent_template = environment.get_template('base.html', 'hardware.html')
    for name, parent_block in parent_template.blocks.items():
        context.blocks.setdefault(name, []).append(parent_block)
    def macro(l_1_nav):
        t_1 = []
        l_1_namespace = resolve('namespace')
        l_1_last = resolve('last')
        if l_1_nav is missing:
            l_1_nav = undefined("parameter 'nav' was not provided", name='nav')
        pass
        if (environment.getattr(l_1_nav, 'pages') > 1):
            pass
            t_1.append(
                '<nav class="pager" aria-label="Pages of this list">',
            )
            if environment.getattr(l_1_nav, 'prev'):
                pass
                t_1.extend((
                    '<a href="',
                    escape(environment.getattr(l_1_nav, 'prev')),
                    '" rel="prev">← Previous</a>',
                ))
            l_1_last = context.call((undefined(name='namespace') if l_1_namespace is missing else l_1_namespace), n=0)
            for (l_2_n, l_2_href) in environment.getattr(l_1_nav, 'links'):
                _loop_vars = {}
                pass
                if (l_2_n > (environment.getattr((undefined(name='last') if l_1_last is missing else l_1_last), 'n') + 1)):
                    pass
                    t_1.append(
                        '<span aria-hidden="true">…</span>',
                    )
                if (l_2_n == environment.getattr(l_1_nav, 'page')):
                    pass
                    t_1.extend((
                        '<span aria-current="page">',
                        escape(l_2_n),
                        '</span>',
                    ))
                else:
                    pass
                    t_1.extend((
                        '<a href="',
                        escape(l_2_href),
                        '">',
                        escape(l_2_n),
                        '</a>',
                    ))
                if not isinstance(l_1_last, Namespace):
                    raise TemplateRuntimeError("cannot assign attribute on non-namespace object")
                l_1_last['n'] = l_2_n
            l_2_n = l_2_href = missing
            if environment.getattr(l_1_nav, 'next'):
                pass
                t_1.extend((
                    '<a href="',
                    escape(environment.getattr(l_1_nav, 'next')),
                    '" rel="next">Next →</a>',
                ))
            t_1.append(
                '</nav>\n',
            )
        return concat(t_1)
    context.exported_vars.add('pager')
    context.vars['pager'] = l_0_pager = Macro(environment, macro, 'pager', ('nav',), False, False, False, context.eval_ctx.autoescape)
    yield from parent_template.root_render_func(context)

def block_main(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_hw = resolve('hw')
    l_0_base = resolve('base')
    l_0_title = resolve('title')
    l_0_json_url = resolve('json_url')
    l_0_nav = resolve('nav')
    l_0_search_url = resolve('search_url')
    l_0_pager = resolve('pager')
    l_0_fits = resolve('fits')
    l_0_multi = resolve('multi')
    l_0_p = missing
    pass
    l_0_p = environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'profile')
    _block_vars['p'] = l_0_p
    yield '<nav class="crumbs" aria-label="Breadcrumb"><a href="'
    yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
    yield '/">Models</a> / <a href="'
    yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
    yield '/hardware/">Hardware</a> / <span aria-current="page">'
    yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'label'))
    yield '</span></nav>\n<h1>'
    yield escape((undefined(name='title') if l_0_title is missing else l_0_title))
    yield '</h1>\n'
    if environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'description'):
        pass
        yield '<p class="lede">'
        yield escape(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'description'))
        yield '</p>'
    yield '<p class="hfid">'
    yield escape(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'brand'))
    yield ' · '
    yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'gpus'))
    yield ' × '
    yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'per_gpu'))
    yield ' GB per node · <a href="'
    yield escape((undefined(name='json_url') if l_0_json_url is missing else l_0_json_url))
    yield '">JSON</a></p>\n<p class="hw-summary" data-hw-summary>'
    yield escape(context.call(environment.getattr('{:,}', 'format'), environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'fits'), _block_vars=_block_vars))
    yield ' model'
    yield escape(('s' if (environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'fits') != 1) else cond_expr_undefined("the inline if-expression on line 13 in 'hardware.html' evaluated to false and no else section was defined.")))
    yield ' fit one node'
    if environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'multi'):
        pass
        yield ', '
        yield escape(context.call(environment.getattr('{:,}', 'format'), environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'multi'), _block_vars=_block_vars))
        yield ' need more'
    yield '.'
    if (environment.getattr((undefined(name='nav') if l_0_nav is missing else l_0_nav), 'pages') > 1):
        pass
        yield ' Showing '
        yield escape(environment.getattr((undefined(name='nav') if l_0_nav is missing else l_0_nav), 'from'))
        yield '–'
        yield escape(environment.getattr((undefined(name='nav') if l_0_nav is missing else l_0_nav), 'to'))
        yield ', page '
        yield escape(environment.getattr((undefined(name='nav') if l_0_nav is missing else l_0_nav), 'page'))
        yield ' of '
        yield escape(environment.getattr((undefined(name='nav') if l_0_nav is missing else l_0_nav), 'pages'))
        yield '.'
    if (environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'fits') or environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'multi')):
        pass
        yield ' <a href="'
        yield escape((undefined(name='search_url') if l_0_search_url is missing else l_0_search_url))
        yield '">Search and filter them</a>'
    yield '</p>\n'
    yield escape(context.call((undefined(name='pager') if l_0_pager is missing else l_0_pager), (undefined(name='nav') if l_0_nav is missing else l_0_nav), _block_vars=_block_vars))
    yield '\n'
    if ((undefined(name='fits') if l_0_fits is missing else l_0_fits) or (environment.getattr((undefined(name='nav') if l_0_nav is missing else l_0_nav), 'page') == 1)):
        pass
        yield '<section class="panel" aria-labelledby="fits-h"><h2 id="fits-h">Fits on one node ('
        yield escape(context.call(environment.getattr('{:,}', 'format'), environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'fits'), _block_vars=_block_vars))
        yield ')</h2>\n'
        if (undefined(name='fits') if l_0_fits is missing else l_0_fits):
            pass
            yield '<p class="hint">For each model: the largest variant whose recommended layout needs one node, with its default features.</p>\n<ul class="runs">\n'
            l_1_loop = missing
            for l_1_item, l_1_loop in LoopContext((undefined(name='fits') if l_0_fits is missing else l_0_fits), undefined):
                _loop_vars = {}
                pass
                yield '<li data-hw-model="'
                yield escape(environment.getattr(environment.getattr(l_1_item, 'row'), 'id'))
                yield '"><details><summary><b>'
                yield escape((environment.getattr(environment.getattr(l_1_item, 'row'), 'title') or environment.getattr(environment.getattr(l_1_item, 'row'), 'id')))
                yield '</b> <span class="tag">'
                yield escape(environment.getattr(l_1_item, 'variant_label'))
                yield '</span> <small>'
                yield escape(environment.getattr(l_1_item, 'strategy'))
                yield '</small></summary>\n'
                if environment.getattr(l_1_item, 'command'):
                    pass
                    yield '<div class="code"><pre id="cmd-'
                    yield escape(environment.getattr(l_1_loop, 'index'))
                    yield '" tabindex="0">'
                    yield escape(environment.getattr(l_1_item, 'command'))
                    yield '</pre><button type="button" class="copy" data-copy-from="cmd-'
                    yield escape(environment.getattr(l_1_loop, 'index'))
                    yield '">Copy</button></div>'
                if (environment.getattr(l_1_item, 'deploy_type') != 'single_node'):
                    pass
                    yield '<p class="hint">This layout starts several processes; the recipe page shows each.</p>'
                yield '<p><a href="'
                yield escape(environment.getattr(l_1_item, 'href'))
                yield '">Open '
                yield escape(environment.getattr(environment.getattr(l_1_item, 'row'), 'id'))
                yield ' on '
                yield escape(environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'label'))
                yield '</a></p>\n</details></li>\n'
            l_1_loop = l_1_item = missing
            yield '</ul>\n'
        else:
            pass
            yield '<p>No recipe fits on one node of this profile.</p>'
        yield '</section>\n'
    if (undefined(name='multi') if l_0_multi is missing else l_0_multi):
        pass
        yield '<section class="panel" aria-labelledby="multi-h"><h2 id="multi-h">Needs more than one node ('
        yield escape(context.call(environment.getattr('{:,}', 'format'), environment.getattr((undefined(name='hw') if l_0_hw is missing else l_0_hw), 'multi'), _block_vars=_block_vars))
        yield ')</h2>\n<ul class="list">'
        for l_1_item in (undefined(name='multi') if l_0_multi is missing else l_0_multi):
            _loop_vars = {}
            pass
            yield '<li data-hw-model="'
            yield escape(environment.getattr(environment.getattr(l_1_item, 'row'), 'id'))
            yield '"><a href="'
            yield escape(environment.getattr(l_1_item, 'href'))
            yield '"><b>'
            yield escape((environment.getattr(environment.getattr(l_1_item, 'row'), 'title') or environment.getattr(environment.getattr(l_1_item, 'row'), 'id')))
            yield '</b></a> <span class="tag">'
            yield escape(environment.getattr(l_1_item, 'variant_label'))
            yield '</span> <small>'
            yield escape(environment.getattr(l_1_item, 'nodes'))
            yield ' nodes · '
            yield escape(environment.getattr(l_1_item, 'strategy'))
            yield '</small></li>'
        l_1_item = missing
        yield '</ul>\n</section>\n'
    yield escape(context.call((undefined(name='pager') if l_0_pager is missing else l_0_pager), (undefined(name='nav') if l_0_nav is missing else l_0_nav), _block_vars=_block_vars))
    yield '\n'

blocks = {'main': block_main}
debug_info = '1=13&2=16&3=28&4=35&5=64&7=79&8=97&9=100&10=106&11=108&12=114&13=122&14=149&15=151&16=154&17=156&20=160&21=164&22=172&23=181&24=185&31=197&32=200&33=202&36=220'
# Generated by `python -m recipes_site.render.precompiled` from templates/hardware.html: do not edit.

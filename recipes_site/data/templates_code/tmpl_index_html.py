from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'index.html'

def root(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    parent_template = None
    l_0_hide_search = missing
    pass
    parent_template = environment.get_template('base.html', 'index.html')
    for name, parent_block in parent_template.blocks.items():
        context.blocks.setdefault(name, []).append(parent_block)
    l_0_hide_search = True
    context.vars['hide_search'] = l_0_hide_search
    context.exported_vars.add('hide_search')
    yield from parent_template.root_render_func(context)

def block_main(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_total = resolve('total')
    l_0_hardware_count = resolve('hardware_count')
    l_0_base = resolve('base')
    l_0_facet_labels = resolve('facet_labels')
    l_0_sorts = resolve('sorts')
    l_0_records = resolve('records')
    l_0_pages = resolve('pages')
    l_0_config = resolve('config')
    l_0_providers = resolve('providers')
    l_0_more_orgs = resolve('more_orgs')
    l_0_data = resolve('data')
    try:
        t_1 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_2 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_3 = environment.filters['map']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'map' found.")
    try:
        t_4 = environment.filters['script_json']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'script_json' found.")
    pass
    yield '<div class="hero">\n<h1>How to run any model on any hardware with vLLM</h1>\n<p class="lede">'
    yield escape(context.call(environment.getattr('{:,}', 'format'), (undefined(name='total') if l_0_total is missing else l_0_total), _block_vars=_block_vars))
    yield ' models, '
    yield escape((undefined(name='hardware_count') if l_0_hardware_count is missing else l_0_hardware_count))
    yield ' hardware profiles: pick one and copy the exact <code>vllm serve</code> or <code>docker run</code> command. <a href="'
    yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
    yield '/hardware/">What fits on my hardware?</a></p>\n</div>\n<div class="browse">\n<details class="filters" id="filters" open>\n<summary>Filters<span data-filter-count></span></summary>\n'
    for l_1_facet in (undefined(name='facet_labels') if l_0_facet_labels is missing else l_0_facet_labels):
        l_1_facets = resolve('facets')
        l_1_more_providers = resolve('more_providers')
        _loop_vars = {}
        pass
        if environment.getitem((undefined(name='facets') if l_1_facets is missing else l_1_facets), l_1_facet):
            pass
            yield '<fieldset class="facet'
            if ((l_1_facet == 'provider') or (l_1_facet == 'hardware')):
                pass
                yield ' long'
            yield '"><legend>'
            yield escape(environment.getitem((undefined(name='facet_labels') if l_0_facet_labels is missing else l_0_facet_labels), l_1_facet))
            yield '</legend>\n'
            for (l_2_value, l_2_label, l_2_count) in environment.getitem((undefined(name='facets') if l_1_facets is missing else l_1_facets), l_1_facet):
                _loop_vars = {}
                pass
                yield '<label class="chip"><input type="checkbox" data-facet="'
                yield escape(l_1_facet)
                yield '" value="'
                yield escape(l_2_value)
                yield '"> <span>'
                yield escape(l_2_label)
                yield '</span> <span class="n" data-count>'
                yield escape(l_2_count)
                yield '</span></label>\n'
            l_2_value = l_2_label = l_2_count = missing
            if ((l_1_facet == 'provider') and (undefined(name='more_providers') if l_1_more_providers is missing else l_1_more_providers)):
                pass
                yield '<p class="hint">'
                yield escape((undefined(name='more_providers') if l_1_more_providers is missing else l_1_more_providers))
                yield " more: type a provider's name to find its recipes.</p>"
            yield '</fieldset>\n'
    l_1_facet = l_1_facets = l_1_more_providers = missing
    yield '</details>\n<div class="results" id="results">\n<div class="bar">\n<label class="search"><span class="sr-only">Search recipes</span><input type="search" id="search" data-search placeholder="Search models, providers, hardware…" autocomplete="off" spellcheck="false"><kbd aria-hidden="true">/</kbd></label>\n<label class="sort">Sort <select data-sort>'
    for (l_1_key, l_1_label) in (undefined(name='sorts') if l_0_sorts is missing else l_0_sorts):
        _loop_vars = {}
        pass
        yield '<option value="'
        yield escape(l_1_key)
        yield '">'
        yield escape(l_1_label)
        yield '</option>'
    l_1_key = l_1_label = missing
    yield '</select></label>\n</div>\n<p class="count"><span data-result-count role="status" aria-live="polite">'
    if ((undefined(name='total') if l_0_total is missing else l_0_total) > t_2((undefined(name='records') if l_0_records is missing else l_0_records))):
        pass
        yield 'Showing '
        yield escape(t_2((undefined(name='records') if l_0_records is missing else l_0_records)))
        yield ' of '
        yield escape(context.call(environment.getattr('{:,}', 'format'), (undefined(name='total') if l_0_total is missing else l_0_total), _block_vars=_block_vars))
        yield ' recipes'
    else:
        pass
        yield escape((undefined(name='total') if l_0_total is missing else l_0_total))
        yield ' of '
        yield escape((undefined(name='total') if l_0_total is missing else l_0_total))
        yield ' recipes'
    yield '</span> <button type="button" class="linkish" data-clear-filters disabled>Clear all</button></p>\n<table class="models">\n<thead><tr><th scope="col">Model</th><th scope="col">Size</th><th scope="col" class="c-arch">Arch</th><th scope="col">Precision</th><th scope="col" class="c-hw">Runs on</th><th scope="col" class="c-date">Updated</th></tr></thead>\n<tbody data-rows>\n'
    l_1_loop = missing
    for l_1_r, l_1_loop in LoopContext((undefined(name='records') if l_0_records is missing else l_0_records), undefined):
        _loop_vars = {}
        pass
        yield '<tr data-recipe-row data-id="'
        yield escape(environment.getattr(l_1_r, 'id'))
        yield '">\n<td><a href="'
        yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
        yield '/'
        yield escape(environment.getattr(l_1_r, 'id'))
        yield '/"><b>'
        yield escape(environment.getattr(l_1_r, 'title'))
        yield '</b></a><small>'
        yield escape(environment.getattr(l_1_r, 'id'))
        l_2_loop = missing
        for l_2_t, l_2_loop in LoopContext(environment.getattr(l_1_r, 'task'), undefined):
            l_2_task_labels = resolve('task_labels')
            _loop_vars = {}
            pass
            yield escape((' · ' if environment.getattr(l_2_loop, 'first') else ', '))
            yield escape(context.call(environment.getattr((undefined(name='task_labels') if l_2_task_labels is missing else l_2_task_labels), 'get'), l_2_t, l_2_t, _loop_vars=_loop_vars))
        l_2_loop = l_2_t = l_2_task_labels = missing
        yield '</small></td>\n<td>'
        yield escape(environment.getattr(l_1_r, 'params_label'))
        if environment.getattr(l_1_r, 'active_label'):
            pass
            yield '<small>'
            yield escape(environment.getattr(l_1_r, 'active_label'))
            yield ' active</small>'
        yield '</td>\n<td class="c-arch">'
        for l_2_a in environment.getattr(l_1_r, 'architecture'):
            l_2_arch_labels = resolve('arch_labels')
            _loop_vars = {}
            pass
            yield escape(context.call(environment.getattr((undefined(name='arch_labels') if l_2_arch_labels is missing else l_2_arch_labels), 'get'), l_2_a, l_2_a, _loop_vars=_loop_vars))
        l_2_a = l_2_arch_labels = missing
        yield '</td>\n<td>'
        yield escape(t_1(context.eval_ctx, t_3(context, environment.getattr(l_1_r, 'precision'), 'upper'), ' '))
        yield '</td>\n<td class="c-hw">'
        if (not environment.getattr(l_1_r, 'hardware')):
            pass
            yield escape(('vLLM-Omni' if ('omni' in environment.getattr(l_1_r, 'task')) else '—'))
        l_2_loop = missing
        for l_2_h, l_2_loop in LoopContext(environment.getattr(l_1_r, 'hardware')[:4], undefined):
            l_2_hw_labels = resolve('hw_labels')
            _loop_vars = {}
            pass
            yield escape(environment.getitem((undefined(name='hw_labels') if l_2_hw_labels is missing else l_2_hw_labels), l_2_h))
            yield escape((', ' if (not environment.getattr(l_2_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 35 in 'index.html' evaluated to false and no else section was defined.")))
        l_2_loop = l_2_h = l_2_hw_labels = missing
        if (t_2(environment.getattr(l_1_r, 'hardware')) > 4):
            pass
            yield ' +'
            yield escape((t_2(environment.getattr(l_1_r, 'hardware')) - 4))
        yield '</td>\n<td class="c-date">'
        yield escape(environment.getattr(l_1_r, 'updated'))
        yield '</td>\n</tr>\n'
    l_1_loop = l_1_r = missing
    yield '</tbody>\n</table>\n<nav class="pager" data-pager aria-label="Result pages"'
    if ((undefined(name='pages') if l_0_pages is missing else l_0_pages) < 2):
        pass
        yield ' hidden'
    yield '>'
    if ((undefined(name='pages') if l_0_pages is missing else l_0_pages) > 1):
        pass
        yield '<a href="'
        yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
        yield '/?page=2" data-page="2" rel="next">Next →</a> <span data-page-status>Page 1 of '
        yield escape((undefined(name='pages') if l_0_pages is missing else l_0_pages))
        yield '</span>'
    yield '</nav>\n<p class="empty" data-empty hidden>No recipe matches. Try fewer words or filters'
    if environment.getattr((undefined(name='config') if l_0_config is missing else l_0_config), 'repo_url'):
        pass
        yield ', or <a href="'
        yield escape(context.call(environment.getattr((undefined(name='config') if l_0_config is missing else l_0_config), 'request_url'), _block_vars=_block_vars))
        yield '">request a recipe</a>'
    yield '.</p>\n</div>\n</div>\n<section class="panel" aria-labelledby="prov-h"><h2 id="prov-h">Providers</h2>\n<ul class="chips">'
    for (l_1_org, l_1_name, l_1_n) in (undefined(name='providers') if l_0_providers is missing else l_0_providers):
        _loop_vars = {}
        pass
        yield '<li><a href="'
        yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
        yield '/'
        yield escape(l_1_org)
        yield '/">'
        yield escape(l_1_name)
        yield '</a> <span class="n">'
        yield escape(l_1_n)
        yield '</span></li>'
    l_1_org = l_1_name = l_1_n = missing
    yield '</ul>\n'
    if (undefined(name='more_orgs') if l_0_more_orgs is missing else l_0_more_orgs):
        pass
        yield '<p class="hint">The '
        yield escape((undefined(name='more_orgs') if l_0_more_orgs is missing else l_0_more_orgs))
        yield ' providers with the fewest recipes are not listed here: search for them above.</p>'
    yield '</section>\n<script type="application/json" id="browse-data">'
    yield escape(t_4((undefined(name='data') if l_0_data is missing else l_0_data)))
    yield '</script>\n'

blocks = {'main': block_main}
debug_info = '1=13&2=16&3=21&6=65&11=71&12=79&13=85&14=89&16=98&23=106&25=116&29=131&30=135&31=137&32=153&33=160&34=167&35=169&36=185&41=189&42=201&46=207&47=221&49=227'
# Generated by `python -m recipes_site.render.precompiled` from templates/index.html: do not edit.

from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'provider.html'

def root(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    parent_template = None
    pass
    parent_template = environment.get_template('base.html', 'provider.html')
    for name, parent_block in parent_template.blocks.items():
        context.blocks.setdefault(name, []).append(parent_block)
    yield from parent_template.root_render_func(context)

def block_main(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_base = resolve('base')
    l_0_name = resolve('name')
    l_0_org = resolve('org')
    l_0_count = resolve('count')
    l_0_hf_url = resolve('hf_url')
    l_0_groups = resolve('groups')
    try:
        t_1 = environment.filters['capitalize']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'capitalize' found.")
    pass
    yield '<nav class="crumbs" aria-label="Breadcrumb"><a href="'
    yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
    yield '/">Models</a> / <span aria-current="page">'
    yield escape((undefined(name='name') if l_0_name is missing else l_0_name))
    yield '</span></nav>\n<h1>'
    yield escape((undefined(name='name') if l_0_name is missing else l_0_name))
    yield '</h1>\n<p class="hfid"><code>'
    yield escape((undefined(name='org') if l_0_org is missing else l_0_org))
    yield '</code> · '
    yield escape((undefined(name='count') if l_0_count is missing else l_0_count))
    yield ' recipe'
    yield escape(('s' if ((undefined(name='count') if l_0_count is missing else l_0_count) != 1) else cond_expr_undefined("the inline if-expression on line 5 in 'provider.html' evaluated to false and no else section was defined.")))
    yield ' · <a href="'
    yield escape((undefined(name='hf_url') if l_0_hf_url is missing else l_0_hf_url))
    yield '" rel="noopener">Hugging Face</a></p>\n'
    for (l_1_task, l_1_rows) in (undefined(name='groups') if l_0_groups is missing else l_0_groups):
        l_1_task_labels = resolve('task_labels')
        _loop_vars = {}
        pass
        yield '<section class="panel" aria-labelledby="t-'
        yield escape(l_1_task)
        yield '"><h2 id="t-'
        yield escape(l_1_task)
        yield '">'
        yield escape(context.call(environment.getattr((undefined(name='task_labels') if l_1_task_labels is missing else l_1_task_labels), 'get'), l_1_task, t_1(l_1_task), _loop_vars=_loop_vars))
        yield '</h2>\n<ul class="list">\n'
        for l_2_r in l_1_rows:
            l_2_arch_labels = resolve('arch_labels')
            _loop_vars = {}
            pass
            yield '<li><a href="'
            yield escape((undefined(name='base') if l_0_base is missing else l_0_base))
            yield '/'
            yield escape(environment.getattr(l_2_r, 'id'))
            yield '/"><b>'
            yield escape((environment.getattr(l_2_r, 'title') or environment.getattr(l_2_r, 'id')))
            yield '</b></a> <small>'
            yield escape(environment.getattr(l_2_r, 'id'))
            yield '</small>\n<p>'
            if environment.getattr(l_2_r, 'params_label'):
                pass
                yield escape(environment.getattr(l_2_r, 'params_label'))
                if environment.getattr(l_2_r, 'active_label'):
                    pass
                    yield ' / '
                    yield escape(environment.getattr(l_2_r, 'active_label'))
                    yield ' active'
                yield ' · '
            if environment.getattr(l_2_r, 'architecture'):
                pass
                yield escape(context.call(environment.getattr((undefined(name='arch_labels') if l_2_arch_labels is missing else l_2_arch_labels), 'get'), environment.getattr(l_2_r, 'architecture'), environment.getattr(l_2_r, 'architecture'), _loop_vars=_loop_vars))
                yield ' · '
            if environment.getattr(l_2_r, 'context'):
                pass
                yield escape(environment.getattr(l_2_r, 'context'))
                yield ' context · '
            if environment.getattr(l_2_r, 'min_vllm_version'):
                pass
                yield 'vLLM '
                yield escape(environment.getattr(l_2_r, 'min_vllm_version'))
                yield '+'
            yield '</p>\n<ul class="chips small">'
            for l_3_v in environment.getattr(l_2_r, 'variants'):
                _loop_vars = {}
                pass
                yield '<li>'
                yield escape(environment.getattr(l_3_v, 'precision'))
                if environment.getattr(l_3_v, 'vram'):
                    pass
                    yield ' '
                    yield escape(environment.getattr(l_3_v, 'vram'))
                    yield ' GB'
                yield '</li>'
            l_3_v = missing
            yield '</ul>\n</li>\n'
        l_2_r = l_2_arch_labels = missing
        yield '</ul>\n</section>\n'
    l_1_task = l_1_rows = l_1_task_labels = missing

blocks = {'main': block_main}
debug_info = '1=12&2=17&3=38&4=42&5=44&6=52&7=57&9=63&10=68&11=76&12=99'
# Generated by `python -m recipes_site.render.precompiled` from templates/provider.html: do not edit.

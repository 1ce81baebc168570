# settings: unsafe_fixes=true site_lines=10
# An episode's return summed over the steps that were neither done nor padding, with torch.sum
# (a reinforcement-learning rollout's bookkeeping), in a compiled function.
import torch


@torch.compile
def episode_return(rewards, done, padding):
    live = (done == 0) & (padding == 0)
    return torch.where(live, rewards, 0).sum()
